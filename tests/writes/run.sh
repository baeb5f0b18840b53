#!/bin/bash
# tests/writes/run.sh - where the profile goes when things go wrong, with
# tests/writes/rewrite.c (its header states the ground truth) built serially
# (tier 1, -finstrument-functions) and for MPI:
#   a. a program that rewrites its process title (argv, environ, setenv
#      HPROF_OUTPUT) still writes its profile where the run started asking,
#      and its run table and summary show the real command (serial, 2 ranks);
#   b. a full disk (a 64 KiB tmpfs, skipped if mounting is not permitted):
#      one line naming the path and the OS reason, no "profile written",
#      no file left (serial, 3 ranks);
#   c. a failed collective write (a stale NAME.hpf.partial) falls back to
#      NAME.rank<N>.hpf, each with its rank's records (3 ranks);
#   d. long HPROF_OUTPUT paths (255 and 4100 characters): one warning, a
#      short name in the same directory (else the current one), exit 0;
#   e. HPROF_OUTPUT naming a device, a missing directory, a file used as a
#      directory, a directory with a trailing "/" (docs/settings.md's
#      table).
# Every run's stdout is the same as without hprof, and its exit status 0.
#
# usage: tests/writes/run.sh [BUILDDIR]   (default: the current directory).
# Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1.  Prints "ok - NAME" / "not ok - NAME:
# expected X got Y" and a last line "N passed, M failed"; exits 1 if
# anything failed.
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/writes

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir writes

B=$tmp/bin
mkdir -p "$B"
if ! [ -e "$LIBDIR/libhprof.so" ] || ! [ -x "$QUERY" ] ||
    ! gcc -g -O0 -finstrument-functions "$S/rewrite.c" -o "$B/ser" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" ||
    ! "$MPICC" -g -O1 -DWITH_MPI "$S/rewrite.c" -o "$B/mpi" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" ||
    ! gcc -g -O0 "$S/rewrite.c" -o "$B/ser.plain" ||
    ! "$MPICC" -g -O1 -DWITH_MPI "$S/rewrite.c" -o "$B/mpi.plain"; then
    notok "prerequisites" "libhprof, hprof-query or a compiler missing (build with 'make check' first)"
    echo "$pass passed, $fail failed"
    exit 1
fi
"$B/ser.plain" >"$tmp/ser.plain.out"
for np in 2 3; do
    "$MPIRUN" -np $np "${MPIFLAGS[@]}" "$B/mpi.plain" </dev/null | sort >"$tmp/mpi$np.plain.out"
done

# run_ser NAME OUTPUT ARGS... - the serial build with HPROF_OUTPUT=OUTPUT,
# in the fresh directory $tmp/NAME.cwd; sets RC, WRITTEN (the path the
# summary names, or "") and checks stdout and the exit status.
run_ser() {
    local name=$1 out=$2
    shift 2
    mkdir -p "$tmp/$name.cwd"
    RC=0
    (cd "$tmp/$name.cwd" && HPROF_OUTPUT=$out timeout 120 "$B/ser" "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null) || RC=$?
    after_run "$name" "$tmp/ser.plain.out" "$tmp/$name.out"
}

# run_mpi NAME NP OUTPUT ARGS... - the same under mpirun with NP ranks.
run_mpi() {
    local name=$1 np=$2 out=$3
    shift 3
    mkdir -p "$tmp/$name.cwd"
    RC=0
    (cd "$tmp/$name.cwd" && HPROF_OUTPUT=$out timeout 300 "$MPIRUN" -np "$np" "${MPIFLAGS[@]}" \
        -x HPROF_OUTPUT "$B/mpi" "$@" >"$tmp/$name.raw" 2>"$tmp/$name.err" </dev/null) || RC=$?
    sort "$tmp/$name.raw" >"$tmp/$name.out"
    after_run "$name" "$tmp/mpi$np.plain.out" "$tmp/$name.out"
}

after_run() {
    expect_eq "$1: exit status" 0 "$RC"
    same_stdout "$1: same stdout with and without hprof" "$2" "$3"
    WRITTEN=$(sed -n 's/^hprof: profile written to \(.*[^ ]\) *$/\1/p' "$tmp/$1.err")
}

# warnings NAME - hprof's lines about the profile's place (of any rank).
warnings() {
    grep -E '^hprof(\[[0-9]+\])?: .*(cannot write|longer than|neither a file|exists;|one file per rank)' \
        "$tmp/$1.err"
}

# run_value DB KEY - a value of the profile's run table.
run_value() { q "$1" "SELECT value FROM run WHERE key = '$2'"; }

# ------------------------------------------- a. the process title rewritten
identity_checks() {
    local name=$1 prog=$2
    expect_eq "$name: the profile is where HPROF_OUTPUT said at start" "$tmp/$name.hpf" "$WRITTEN"
    if [ -s "$tmp/$name.hpf" ]; then
        check_profile "$name" "$tmp/$name.hpf"
        expect_eq "$name: run program" "$prog" "$(run_value "$tmp/$name.hpf" program)"
        expect_eq "$name: run argv" "$prog rewrite alpha" "$(run_value "$tmp/$name.hpf" argv)"
    else
        notok "$name: profile written" "no $tmp/$name.hpf; stderr: $(tail -3 "$tmp/$name.err" | oneline)"
    fi
    expect_eq "$name: the summary names the real command" "hprof: ==== hprof summary: $prog ====" \
        "$(grep '==== hprof summary' "$tmp/$name.err")"
    expect_eq "$name: nothing written under the rewritten HPROF_OUTPUT" "" "$(warnings "$name")"
}
run_ser id.ser "$tmp/id.ser.hpf" rewrite alpha
identity_checks id.ser "$B/ser"
expect_eq "id.ser: step() calls (STEPS)" 1000 \
    "$(q "$tmp/id.ser.hpf" "SELECT sum(st.count) $OMPJOIN WHERE s.kind = 'procedure' AND s.name = 'step'")"
run_mpi id.mpi 2 "$tmp/id.mpi.hpf" rewrite alpha
identity_checks id.mpi "$B/mpi"

# ----------------------------------------------------------- b. a full disk
full=$tmp/full
mkdir -p "$full"
if mount -t tmpfs -o size=64k tmpfs "$full" 2>/dev/null; then
    trap 'umount "$full" 2>/dev/null; [ "${HPROF_KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"' EXIT
    dd if=/dev/zero of="$full/fill" bs=4k count=64 2>/dev/null
    dd if=/dev/zero of="$full/fill2" bs=1k count=64 2>/dev/null
    run_ser full.ser "$full/s.hpf"
    expect_eq "full.ser: one line naming the path and the reason" \
        "hprof: cannot write profile $full/s.hpf: No space left on device" "$(warnings full.ser)"
    expect_eq "full.ser: no profile written" "" "$WRITTEN"
    run_mpi full.mpi 3 "$full/m.hpf"
    expect_eq "full.mpi: the collective write's failure named" 1 \
        "$(warnings full.mpi | grep -cxF "hprof: cannot write profile $full/m.hpf: No space left on device")"
    expect_eq "full.mpi: each rank's own file failed too" 3 \
        "$(warnings full.mpi | grep -cE "cannot write profile $full/m\.rank[0-2]\.hpf: No space left on device$")"
    expect_eq "full.mpi: no profile written" "" "$WRITTEN"
    expect_eq "full: no file left behind" "fill fill2" "$(cd "$full" && echo *)"
    umount "$full"
else
    skipped "full disk" "cannot mount a tmpfs here (not permitted)"
fi

# ------------------------------------- c. per-rank files after a failed write
: >"$tmp/fb.hpf.partial"
run_mpi fb 3 "$tmp/fb.hpf"
expect_eq "fb: the failure named" 1 "$(warnings fb | grep -c "^hprof: cannot write profile $tmp/fb.hpf: ")"
expect_eq "fb: the per-rank files named" \
    "hprof: the records are in one file per rank instead: $tmp/fb.rank0.hpf to $tmp/fb.rank2.hpf" \
    "$(warnings fb | grep 'one file per rank')"
expect_eq "fb: no profile written as one file" "" "$WRITTEN"
expect_eq "fb: the summary ends with the drill-down on the per-rank files" \
    "hprof: drill down with: hprof-query $tmp/fb.rank*.hpf" "$(tail -1 "$tmp/fb.err")"
expect_eq "fb: the stale partial file left alone, no NAME.hpf" "yes:no" \
    "$([ -e "$tmp/fb.hpf.partial" ] && echo yes || echo no):$([ -e "$tmp/fb.hpf" ] && echo yes || echo no)"
for r in 0 1 2; do
    f=$tmp/fb.rank$r.hpf
    if [ -s "$f" ]; then
        check_profile "fb.rank$r" "$f"
        expect_eq "fb.rank$r: nranks" 3 "$(run_value "$f" nranks)"
        expect_eq "fb.rank$r: only rank $r present" "$r" "$(q "$f" "SELECT group_concat(rank) FROM rank")"
    else
        notok "fb.rank$r: file written" "no $f"
    fi
done

# ------------------------------------------------------------ d. long paths
# 255 characters: MPI_File_open of Open MPI 4.1.4 aborts from about 248.
dir=$tmp/long
while [ ${#dir} -lt 140 ]; do dir=$dir/dddddddddddddddddddd; done
mkdir -p "$dir"
name=$(printf 'p%.0s' $(seq $((255 - ${#dir} - 1 - 4))))
out=$dir/$name.hpf
expect_eq "long255: the path's length" 255 "${#out}"
run_mpi long255.mpi 2 "$out"
expect_eq "long255.mpi: one warning" 1 "$(warnings long255.mpi | grep -c "^hprof: the profile path (255 characters) is longer than 200: writing the profile to $dir/hprof-")"
expect_eq "long255.mpi: a short name in the same directory" "$dir" "$(dirname "$WRITTEN")"
[ -s "$WRITTEN" ] && ok "long255.mpi: profile there" || notok "long255.mpi: profile there" "no '$WRITTEN'"
run_ser long255.ser "$out"
expect_eq "long255.ser: written as asked, no warning" "$out:" "$WRITTEN:$(warnings long255.ser)"

# 4100 characters: longer than PATH_MAX.
dir=$tmp/deep
while [ ${#dir} -lt 4080 ]; do dir=$dir/dddddddddddddddddddd; done
mkdir -p "$dir"
out=$dir/profile-deep.hpf
for kind in ser mpi; do
    if [ $kind = ser ]; then run_ser deep.$kind "$out"; else run_mpi deep.$kind 2 "$out"; fi
    expect_eq "deep.$kind: one warning" 1 "$(warnings deep.$kind | grep -c "^hprof: the profile path (${#out} characters) is longer than [0-9]*: writing the profile to hprof-")"
    expect_eq "deep.$kind: a short name in the current directory" "." "$(dirname "$WRITTEN")"
    [ -n "$WRITTEN" ] && [ -s "$tmp/deep.$kind.cwd/$WRITTEN" ] && ok "deep.$kind: profile there" ||
        notok "deep.$kind: profile there" "no '$WRITTEN' in $tmp/deep.$kind.cwd"
done

# ---------------------------------- e. a device, a missing or new directory
dev_before=$([ -e /dev/null.1 ] && echo yes || echo no)
for kind in ser mpi; do
    if [ $kind = ser ]; then run_ser dev.$kind /dev/null; else run_mpi dev.$kind 2 /dev/null; fi
    expect_eq "dev.$kind: one line, no profile" \
        "hprof: HPROF_OUTPUT=/dev/null is neither a file nor a directory: no profile written:" \
        "$(warnings dev.$kind):$WRITTEN"
    if [ $dev_before = no ]; then
        expect_eq "dev.$kind: nothing created next to the device" no "$([ -e /dev/null.1 ] && echo yes || echo no)"
    fi
    if [ $kind = ser ]; then run_ser miss.$kind "$tmp/missing/x.hpf"; else run_mpi miss.$kind 2 "$tmp/missing/x.hpf"; fi
    expect_eq "miss.$kind: one line naming the directory, no profile" \
        "hprof: cannot write profile $tmp/missing/x.hpf: directory $tmp/missing does not exist:" \
        "$(warnings miss.$kind):$WRITTEN"
    : >"$tmp/afile"
    if [ $kind = ser ]; then run_ser notdir.$kind "$tmp/afile/x.hpf"; else run_mpi notdir.$kind 2 "$tmp/afile/x.hpf"; fi
    expect_eq "notdir.$kind: one line naming the file that is no directory, no profile" \
        "hprof: cannot write profile $tmp/afile/x.hpf: directory $tmp/afile is not a directory:" \
        "$(warnings notdir.$kind):$WRITTEN"
    if [ $kind = ser ]; then run_ser slash.$kind "$tmp/nodir/"; else run_mpi slash.$kind 2 "$tmp/nodir/"; fi
    expect_eq "slash.$kind: a missing directory ending in / named" 1 \
        "$(warnings slash.$kind | grep -c "^hprof: cannot write profile $tmp/nodir/hprof-$kind-[0-9-]*\.hpf: directory $tmp/nodir does not exist$")"
    mkdir -p "$tmp/dir.$kind"
    if [ $kind = ser ]; then run_ser indir.$kind "$tmp/dir.$kind/"; else run_mpi indir.$kind 2 "$tmp/dir.$kind/"; fi
    expect_eq "indir.$kind: the default name in the directory" 1 \
        "$(printf '%s\n' "$WRITTEN" | grep -c "^$tmp/dir.$kind/hprof-$kind-[0-9-]*\.hpf$")"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
