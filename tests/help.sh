#!/bin/bash
# tests/help.sh - every command's --help, -h and --version (issue 27), and
# the manual pages made from them:
#  - hprof-cc (and its compiler-named copies), hprof-instrument,
#    hprof-merge, hprof-query, hprof-report: --help and -h print one usage
#    block on stdout, --version "NAME (hprof) VERSION", exit status 0,
#    nothing on stderr;
#  - hprof-cc --help, -h and --version run no compiler (fake compilers
#    first in PATH record any call); hprof-gcc --version gives gcc's
#    version, then hprof's;
#  - every option a program's parser knows (its string literals "-x",
#    "--name", or hprof-cc's case patterns) is in its --help and its page;
#  - `make install-data DESTDIR=...` installs every page (and the
#    hprof-COMPILER aliases), and man renders each without a warning;
#  - every HPROF_* name the code reads is in man/settings.txt and in
#    hprof(7), and every name there is read somewhere; the ranges and
#    words the table gives are those in libhprof's message for a bad
#    value; docs/settings.md, when there is one, has settings.py's
#    Markdown of that table between its settings markers.
# usage: tests/help.sh [BUILDDIR]   (run from the build tree, srcdir below)
set -u
builddir=$(cd "${1:-${top_builddir:-.}}" && pwd)
srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
QUERY=$builddir/analyzer/hprof-query
. "$srcdir/tests/lib.sh"
test_tmpdir help

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$builddir/config.h")
progs=(analyzer/hprof-query analyzer/hprof-merge analyzer/hprof-report)
have_clang=0
if [ -x "$builddir/instrument/hprof-instrument" ]; then
    have_clang=1
    progs+=(instrument/hprof-instrument instrument/hprof-cc)
fi

# A compiler that leaves a mark: gcc, cc, clang, mpicc first in PATH.
mkdir -p "$tmp/fakebin"
for c in gcc cc clang mpicc; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/compiler-calls"\necho "fake %s 1.0"\n' \
        "$c" "$tmp" "$c" >"$tmp/fakebin/$c"
    chmod +x "$tmp/fakebin/$c"
done
fakepath=$tmp/fakebin:$PATH

# run_opt NAME PROG ARG: stdout in $out, stderr in $err, status in $rc
run_opt() {
    rc=0
    PATH=$fakepath CC=false "$builddir/$2" "$3" >"$tmp/out" 2>"$tmp/err" || rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

# ---- --help, -h, --version ----------------------------------------------
for p in "${progs[@]}"; do
    name=${p##*/}
    for opt in --help -h; do
        run_opt "$name" "$p" "$opt"
        usages=$(printf '%s\n' "$out" | grep -c '^Usage: ')
        expect_eq "$name $opt: status, usage lines, stderr" "0,1," "$rc,$usages,$err"
        [ "$opt" = --help ] && cp "$tmp/out" "$tmp/help-$name"
    done
    run_opt "$name" "$p" --version
    expect_eq "$name --version" "0,$name (hprof) $version," "$rc,$out,$err"
done

if [ $have_clang = 1 ]; then
    rm -f "$tmp/compiler-calls"
    for opt in --help -h --version; do
        run_opt hprof-cc instrument/hprof-cc "$opt"
    done
    expect_eq "hprof-cc --help, -h, --version call no compiler" "" \
        "$(cat "$tmp/compiler-calls" 2>/dev/null)"
    run_opt hprof-gcc instrument/hprof-gcc --help
    expect_eq "hprof-gcc --help: hprof-cc's usage, no compiler" "0,yes," \
        "$rc,$(cmp -s "$tmp/out" "$tmp/help-hprof-cc" && echo yes),$(cat "$tmp/compiler-calls" 2>/dev/null)"
    run_opt hprof-gcc instrument/hprof-gcc --version
    expect_eq "hprof-gcc --version: the compiler's, then hprof's" \
        "0;fake gcc 1.0;hprof-gcc (hprof) $version" "$rc;$(printf '%s\n' "$out" | oneline)"
    rc=0
    rm -f "$tmp/compiler-calls"
    PATH=$fakepath "$builddir/instrument/hprof-cc" gcc --help >/dev/null 2>&1 || rc=$?
    expect_eq "hprof-cc gcc --help: the compiler's help" "0,gcc --help" \
        "$rc,$(cat "$tmp/compiler-calls" 2>/dev/null)"
fi

# ---- every option of a parser is in --help and in the page ---------------
# parser_options PROG: the options the program's parser compares with
parser_options() {
    case $1 in
    hprof-cc)   # the patterns of the option loop after hp_cc_usage
        sed -n '/^while \[ \$# -gt 0 \]; do$/,/^done$/p' "$srcdir/instrument/hprof-cc.in" |
            sed -n 's/^    \(-[-a-z|=*]*\)).*/\1/p' | tr '|' '\n' | sed 's/=\*$//' ;;
    *)
        case $1 in
        hprof-query) f=analyzer/bin/hprof-query.c ;;
        hprof-merge) f=analyzer/bin/hprof-merge.c ;;
        hprof-report) f=analyzer/bin/hprof-report.c ;;
        hprof-instrument) f=instrument/main.c ;;
        esac
        grep -oE '"--?[a-z][a-z0-9-]*(=[a-z0-9]*)?"' "$srcdir/$f" | tr -d '"' | sed 's/=$//' ;;
    esac | sort -u
}
# roff_text PAGE: the page's text with \-, font changes and italic
# corrections undone
roff_text() { sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\[,\/]//g' "$1"; }
for p in "${progs[@]}"; do
    name=${p##*/}
    opts=$(parser_options "$name")
    n=$(printf '%s\n' "$opts" | grep -c .)
    expect_cmp "$name: options found in its parser" ge 4 "$n"
    missing= missing_man=
    page=$builddir/man/$name.1
    [ -f "$page" ] || page=$srcdir/man/$name.1
    for o in $opts; do
        re="(^|[][ ,|])$o([][ =,|]|\$)"
        grep -qE -- "$re" "$tmp/help-$name" || missing+=" $o"
        roff_text "$page" | grep -qE -- "$re" || missing_man+=" $o"
    done
    expect_eq "$name: every parsed option in --help" "" "$missing"
    expect_eq "$name: every parsed option in $name(1)" "" "$missing_man"
done

# ---- the pages, installed ---------------------------------------------
dest=$tmp/dest
rc=0
env -u MAKEFLAGS -u MFLAGS make -s -C "$builddir" install-data DESTDIR="$dest" \
    >"$tmp/install.log" 2>&1 || rc=$?
expect_eq "make install-data DESTDIR=...: status" 0 "$rc"
mandir=$(sed -n 's/^mandir = //p' "$builddir/Makefile")
prefix=$(sed -n 's/^prefix = //p' "$builddir/Makefile")
datarootdir=$(sed -n 's/^datarootdir = //p' "$builddir/Makefile")
mandir=${mandir//\$\{datarootdir\}/$datarootdir}
mandir=${mandir//\$\{prefix\}/$prefix}
pages=(man1/hprof-query.1 man1/hprof-merge.1 man1/hprof-report.1 man7/hprof.7)
[ $have_clang = 1 ] && pages+=(man1/hprof-cc.1 man1/hprof-instrument.1 man1/hprof-gcc.1
                               man1/hprof-mpif90.1 man1/hprof-clang++.1)
have_man=0
command -v man >/dev/null && command -v groff >/dev/null && have_man=1
for pg in "${pages[@]}"; do
    f=$dest$mandir/$pg
    if [ ! -s "$f" ]; then
        notok "installed $pg" "no file $f"
        continue
    fi
    if [ $have_man = 0 ]; then
        skipped "$pg renders" "no man or groff"
        continue
    fi
    # (from the man directory: an alias is ".so man1/hprof-cc.1")
    warnings=$(cd "$dest$mandir" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$pg" 2>&1 >"$tmp/page.txt")
    lines=$(grep -c . "$tmp/page.txt")
    expect_eq "installed $pg renders without warnings" "" "$warnings"
    expect_cmp "installed $pg renders: lines" ge 15 "$lines"
done

# ---- the settings: code, table, hprof(7), docs ---------------------------
settings=$srcdir/man/settings.txt
table=$(python3 "$srcdir/man/settings.py" names "$settings" | sort -u)
read_names=$( { grep -rhoE '(getenv|get)\("HPROF_[A-Z0-9_]+"' "$srcdir"/libhprof "$srcdir"/pmpi \
                    "$srcdir"/analyzer "$srcdir"/instrument --include='*.c' --include='*.h'
                grep -hoE '\$\{?HPROF_[A-Z0-9_]+' "$srcdir"/instrument/hprof-cc.in \
                    "$srcdir"/instrument/hprof-cc-fortran.sh; } |
              grep -oE 'HPROF_[A-Z0-9_]+' | sort -u)
expect_cmp "HPROF_ names read by the code" ge 20 "$(printf '%s\n' "$read_names" | grep -c .)"
expect_eq "every HPROF_ name the code reads is in man/settings.txt" "" \
    "$(comm -23 <(printf '%s\n' "$read_names") <(printf '%s\n' "$table") | oneline)"
expect_eq "every name of man/settings.txt is read by the code" "" \
    "$(comm -13 <(printf '%s\n' "$read_names") <(printf '%s\n' "$table") | oneline)"
page7=$builddir/man/hprof.7
[ -f "$page7" ] || page7=$srcdir/man/hprof.7
missing=
for v in $read_names; do
    roff_text "$page7" | grep -q "^\.B $v\$" || missing+=" $v"
done
expect_eq "every HPROF_ name the code reads has its entry in hprof(7)" "" "$missing"
# The ranges and words of the table are those libhprof accepts: each
# such variable set to a bad value, libhprof's message names them.
lib=$builddir/pmpi/.libs/libhprof.so
if [ -f "$lib" ]; then
    wrong=
    while IFS=$'\t' read -r v accepts; do
        msg=$(env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK "$v=bad" \
              LD_PRELOAD="$lib" /bin/true 2>&1)
        case $msg in
        *" is not a whole number from "*)
            got="range $(printf '%s\n' "$msg" | sed 's/.* from \([0-9]*\) to \([0-9]*\)$/\1 \2/')" ;;
        *" is not one of "*)
            got="words $(printf '%s\n' "${msg##* }" | tr '|' '\n' | sort | paste -sd'|')" ;;
        *) got="message '$msg'" ;;
        esac
        [ "$got" = "$accepts" ] || wrong+=" $v: table $accepts, libhprof $got;"
    done < <(python3 "$srcdir/man/settings.py" accepts "$settings")
    expect_eq "man/settings.txt's values are what libhprof accepts" "" "$wrong"
else
    skipped "man/settings.txt's values are what libhprof accepts" "no $lib"
fi
if [ -f "$srcdir/docs/settings.md" ]; then
    # the part between its markers is the generated table, the rest prose
    python3 "$srcdir/man/settings.py" markdown "$settings" >"$tmp/settings.md"
    sed -n '/^<!-- settings:/,/^<!-- end settings/p' "$srcdir/docs/settings.md" | sed '1d;$d' >"$tmp/doc.md"
    expect_eq "docs/settings.md's table is settings.py's Markdown of man/settings.txt" "" \
        "$(diff "$tmp/settings.md" "$tmp/doc.md" | head -3 | oneline)"
fi

echo "# help: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
