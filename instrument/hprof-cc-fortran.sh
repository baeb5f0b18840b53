# hprof-cc-fortran.sh - the Fortran part of hprof-cc, sourced by it (its
# variables: cc, args, mode, tier, has_g, linkflags, tmp, hp_inc, iopts).
#
# hprof-instrument parses C with libclang and cannot read Fortran, so a
# Fortran source (.f .F .for .ftn .f90 .F90 .f95 .F95 .f03 .F03 .f08 .F08)
# gets what can be had without a Fortran parser:
#  - procedures (tiers 1 and 2): -finstrument-functions hooks (cyg.c) and -g
#    unless the user gave a -g option.  The policy of C, where it can be
#    applied: a first compile of the source at -O0 (its object,
#    disassembled with objdump, and its debug information) finds the tiny procedures (no
#    call, and no loop or fewer than 5 source lines besides the first and
#    the last) and the names of every procedure (module::procedure,
#    host::internal, the program's name), which the function rules of the
#    filter (--filter, HPROF_FILTER) are matched against; the procedures
#    left unprobed go to gcc's -finstrument-functions-exclude-function-list,
#    which matches procedure names as substrings: a procedure whose name
#    is part of the name of one that is probed stays hooked (--list says so);
#    gfortran's main (it only calls the program) and opari2's registration
#    subroutines are never hooked;
#  - OpenMP (tier 2, with -fopenmp, without --no-omp): opari2 rewrites
#    the constructs into POMP2 calls (pomp2_fortran.c; untied tasks stay
#    untied), and a link of objects that have opari2 regions gets their
#    init file (opari2-config --region-initialization), as opari2's
#    documentation describes;
#  - not probed: loops, call statements as static sites (the dynamic call
#    sites of the hooks are recorded), the static line tables.
# `use hprof` finds hprof.mod next to hprof.h.  A source that cannot be
# rewritten or analysed is compiled with what could be applied, after one
# warning naming it; every link gets -lhprof.

# hp_ftn_is_source FILE - is FILE a Fortran source by its suffix?
hp_ftn_is_source() {
    case $1 in
    *.f|*.F|*.for|*.FOR|*.ftn|*.FTN|*.f90|*.F90|*.f95|*.F95|*.f03|*.F03|*.f08|*.F08) return 0 ;;
    esac
    return 1
}

hp_ftn_warn() { echo "hprof-cc: warning: $1: $2" >&2; }

# hp_ftn_procs OBJ - one line per procedure of OBJ (compiled with -g):
# SYMBOL, display name, gcc's name of it (what the exclude list matches)
# and why it is tiny ("" when it is not), tab-separated.
hp_ftn_procs() {
    local obj=$1
    {
        objdump --dwarf=info "$obj" 2>/dev/null | sed 's/^/W /'
        objdump -d -r -l --no-show-raw-insn "$obj" 2>/dev/null | sed 's/^/D /'
    } | awk -F'\t' -v OFS='\t' '
    function hex(s,    v, i) {
        v = 0
        for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
        return v
    }
    function flush_die() {
        if (tag == "DW_TAG_subprogram" && !is_decl && name != "" && name !~ /\._omp_fn\./) {
            disp = name
            for (i = d - 1; i >= 1; i--)
                if ((stag[i] == "DW_TAG_module" || stag[i] == "DW_TAG_subprogram") && sname[i] != "")
                    disp = sname[i] "::" disp
            key = link != "" ? link : (is_main ? "MAIN__" : name)
            if (!(key in display)) { display[key] = disp; gccname[key] = name }
        }
        tag = ""; name = ""; link = ""; is_decl = 0; is_main = 0
    }
    /^W +<[0-9]+><[0-9a-f]+>: Abbrev/ {
        flush_die()
        d = $0; sub(/^W +</, "", d); sub(/>.*/, "", d); d += 0
        tag = ""
        if (match($0, /\(DW_TAG_[a-z_]+\)/)) tag = substr($0, RSTART + 1, RLENGTH - 2)
        stag[d] = tag; sname[d] = ""
        next
    }
    /^W .*DW_AT_name / { n = $0; sub(/.*: /, "", n); name = n; sname[d] = n; next }
    /^W .*DW_AT_linkage_name/ { n = $0; sub(/.*: /, "", n); link = n; next }
    /^W .*DW_AT_main_subprogram/ { is_main = 1; next }
    /^W .*DW_AT_declaration/ { is_decl = 1; next }
    /^W / { next }
    /^D [0-9a-f]+ <.*>:$/ {
        flush_die()
        f = $0; sub(/^D [0-9a-f]+ </, "", f); sub(/>:$/, "", f)
        order[++nf] = f; calls[f] = 0; loop[f] = 0; nlines[f] = 0; pending = 0
        next
    }
    /^D \/.*:[0-9]+/ || /^D [^ \t].*:[0-9]+( \(discriminator [0-9]+\))?$/ {
        l = $0; sub(/ \(discriminator.*$/, "", l); sub(/.*:/, "", l)
        if (f != "" && !((f, l) in seen)) { seen[f, l] = 1; nlines[f]++ }
        next
    }
    /^D[ \t]+[0-9a-f]+: R_/ {
        if (pending && $0 ~ /__cyg_profile_func_(enter|exit)/) calls[f]--
        pending = 0
        next
    }
    /^D +[0-9a-f]+:\t/ {
        pending = 0
        at = $1; sub(/^D +/, "", at); sub(/:$/, "", at)
        split($2, ins, " +")
        op = ins[1]
        if (op ~ /^call/) { calls[f]++; pending = 1 }
        else if (op ~ /^j/ && ins[2] ~ /^[0-9a-f]+$/ && hex(ins[2]) < hex(at))
            loop[f] = 1
        next
    }
    END {
        for (k = 1; k <= nf; k++) {
            s = order[k]
            if (s ~ /\._omp_fn\./ || s ~ /^_GLOBAL_/ || s ~ /^\./) continue
            key = s
            if (!(key in display)) { key = s; sub(/\.[0-9]+$/, "", key) }
            if (!(key in display)) { key = s; sub(/_$/, "", key) }
            disp = (key in display) ? display[key] : key
            gname = (key in gccname) ? gccname[key] : key
            stmts = nlines[s] - 2
            why = ""
            if (s == "main" && ("MAIN__" in display))
                why = "gfortran'"'"'s main, which only calls the program " display["MAIN__"]
            else if (tolower(s) ~ /^pomp2_(user_)?init_reg_/)
                why = "opari2'"'"'s registration of the regions"
            else if (s != "MAIN__" && s != "main" && calls[s] <= 0) {
                if (!loop[s]) why = "tiny procedure: straight-line, no call"
                else if (stmts < 5) why = "tiny procedure: fewer statements than the policy'"'"'s threshold, no call"
            }
            print s, disp, gname, why
        }
    }'
}

# hp_ftn_filter_says NAME... - what the function rules of the filter say
# of a procedure known by any of NAMEs: include, exclude, or nothing
# (the last matching rule decides, as in hp_filter.h).
hp_ftn_filter_says() {
    local verdict= action what glob rest n
    [ -n "$ftn_filter" ] && [ -r "$ftn_filter" ] || return 0
    while read -r action what glob rest; do
        case $action in include|exclude) ;; *) continue ;; esac
        [ "$what" = function ] || continue
        for n in "$@"; do
            # shellcheck disable=SC2053
            if [[ $n == $glob ]]; then verdict=$action; break; fi
        done
    done <"$ftn_filter"
    echo "$verdict"
}

# hp_ftn_policy PROCS - from the lines of hp_ftn_procs of a command's
# sources: the comma-separated exclude list (stdout), and with --list the
# choice per procedure (stderr).
hp_ftn_policy() {
    local procs=$1 sym disp gname why says all_procs=0 excl=() kept=() line reason
    local -A decided=()
    case " ${iopts[*]} " in *" --procedures=all "*) all_procs=1 ;; esac
    while IFS=$'\t' read -r sym disp gname why; do
        [ -n "$sym" ] || continue
        says=$(hp_ftn_filter_says "$disp" "$gname")
        reason=
        if [ "$says" = exclude ]; then reason="excluded by the filter"
        elif [ -n "$why" ] && [ "${why#tiny}" = "$why" ]; then reason=$why
        elif [ -n "$why" ] && [ $all_procs = 0 ] && [ "$says" != include ]; then reason=$why
        fi
        if [ -n "$reason" ]; then excl+=("$gname"); else kept+=("$gname"); fi
        decided[$disp]=${reason:-probed}
    done <<<"$procs"
    local out=() e k sub
    for e in "${excl[@]}"; do
        sub=
        for k in "${kept[@]}"; do
            case $k in *"$e"*) sub=$k; break ;; esac
        done
        if [ -n "$sub" ]; then
            [ "$ftn_list" = 1 ] && echo "hprof-cc: $e: stays hooked: gcc's exclude list matches substrings, and '$sub' is probed" >&2
        else
            out+=("$e")
        fi
    done
    if [ "$ftn_list" = 1 ]; then
        for disp in "${!decided[@]}"; do echo "hprof-cc: procedure $disp: ${decided[$disp]}"; done |
            sort >&2
    fi
    local IFS=,
    echo "${out[*]}"
}

# hp_ftn_abs PATH - PATH from the current directory, absolute.
hp_ftn_abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

# hp_ftn_probe_flags - the user's arguments without inputs, outputs and
# module directory, for the first compile of one source, which runs in
# its own directory (gfortran looks for modules in the current directory
# first: a stale .mod there would shadow the one the source defines; the
# modules of other sources are found in the user's current directory,
# searched after), so include and module directories made absolute.
hp_ftn_probe_flags() {
    local i=0 n=${#args[@]} a
    probe_flags=()
    while [ $i -lt $n ]; do
        a=${args[$i]}
        case $a in
        -o|-MF|-MT|-MQ) i=$((i + 1)) ;;
        -J|-I) i=$((i + 1)); probe_flags+=(-I "$(hp_ftn_abs "${args[$i]}")") ;;
        -J*) probe_flags+=(-I "$(hp_ftn_abs "${a#-J}")") ;;
        -I*) probe_flags+=(-I "$(hp_ftn_abs "${a#-I}")") ;;
        -c|-S|-MD|-MMD|-l*|-L*|-Wl,*|-shared|-static) ;;
        -*) probe_flags+=("$a") ;;
        *.o|*.a|*.so|*.lo|*.c) ;;
        *) hp_ftn_is_source "$a" || probe_flags+=("$a") ;;
        esac
        i=$((i + 1))
    done
}

# hp_ftn_has_openmp - did the user ask for OpenMP?
hp_ftn_has_openmp() {
    local a
    for a in "${args[@]}"; do
        case $a in -fopenmp|-qopenmp|-openmp|-mp) return 0 ;; esac
    done
    return 1
}

# hp_ftn_opari2 SRC OUTDIR - opari2's rewriting of SRC in OUTDIR, under
# SRC's name with the suffix in upper case (preprocessed, same object
# name); prints its path, or warns and fails.
hp_ftn_opari2() {
    local src=$1 dir=$2 base ext out msg
    base=${src##*/}
    ext=${base##*.}
    out=$dir/${base%.*}.${ext^^}
    if ! command -v opari2 >/dev/null; then
        hp_ftn_warn "$src" "OpenMP constructs not instrumented: opari2 not found (the GOMP or OMPT source records them)"
        return 1
    fi
    if ! msg=$(opari2 --omp-task-untied=keep "$src" "$out" 2>&1); then
        hp_ftn_warn "$src" "OpenMP constructs not instrumented: opari2 failed: $(printf '%s' "$msg" | head -2 | tr '\n' ' ')"
        return 1
    fi
    echo "$out"
}

# hp_ftn_compile - compiles the Fortran sources of the command (fsrcs:
# their indexes in args) with hooks, policy and opari2 as above; the C
# sources of a mixed command are compiled as they are, after a warning.
hp_ftn_compile() {
    local idx src k=0 dir copy procs=() excl extra=() omp=0 new=("${args[@]}") asrc sdir
    local hook=(-finstrument-functions) mods=(-I"$(hp_ftn_abs "$hp_inc")")
    [ -n "${HPROF_BUILDDIR:-}" ] && mods+=(-I"$(hp_ftn_abs "$HPROF_BUILDDIR/libhprof")")
    [ $has_g = 1 ] || hook+=(-g)
    [ "$tier" = 2 ] && hp_ftn_has_openmp && omp=1
    case " ${iopts[*]} " in *" --no-omp "*) omp=0 ;; esac
    for idx in "${srcs[@]}"; do
        hp_ftn_warn "${args[$idx]}" "not instrumented: C source compiled by a Fortran command"
    done
    hp_ftn_probe_flags
    for idx in "${fsrcs[@]}"; do
        src=${args[$idx]}
        k=$((k + 1))
        dir=$tmp/f$k
        mkdir -p "$dir"
        if [ $omp = 1 ] && copy=$(hp_ftn_opari2 "$src" "$dir"); then
            new[$idx]=$copy
            local sd
            sd=$(dirname "$src")
            if [ "$sd" = . ]; then extra+=(-fdebug-prefix-map="$dir/="); else extra+=(-fdebug-prefix-map="$dir=$sd"); fi
            extra+=(-I"$sd")
        fi
        asrc=$(hp_ftn_abs "${new[$idx]}")
        sdir=$(hp_ftn_abs "$(dirname "$src")")
        if (here=$PWD && cd "$dir" && $cc "${probe_flags[@]}" -I"$sdir" -I"$here" "${mods[@]}" "${hook[@]}" -O0 -g \
                -J "$dir" -c "$asrc" -o "$dir/probe.o" >/dev/null 2>"$dir/probe.err"); then
            procs+=("$(hp_ftn_procs "$dir/probe.o")")
        else
            local first
            first=$(grep -m1 -E '(^|: )(Fatal )?[Ee]rror:' "$dir/probe.err" | sed "s|$tmp/f[0-9]*/||g")
            hp_ftn_warn "$src" "policy not applied, every procedure hooked: its first compile failed${first:+: $first}"
        fi
    done
    excl=$(hp_ftn_policy "$(printf '%s\n' "${procs[@]}")")
    [ -n "$excl" ] && hook+=(-finstrument-functions-exclude-function-list="$excl")
    if [ "$ftn_list" = 1 ]; then
        local how="recorded at run time by the GOMP or OMPT source"
        [ $omp = 1 ] && how="rewritten by opari2 (POMP2)"
        echo "hprof-cc: OpenMP constructs: $how" >&2
        echo "hprof-cc: not probed in Fortran (no Fortran parser): loops, call statements as static sites, static line tables" >&2
    fi
    if $cc "${mods[@]}" "${extra[@]}" "${new[@]}" "${hook[@]}" "${linkflags[@]}" 2>"$tmp/stderr"; then
        cat "$tmp/stderr" >&2
        hp_ftn_keep
        return 0
    fi
    if [ ${#extra[@]} -gt 0 ] && $cc "${mods[@]}" "${args[@]}" "${hook[@]}" "${linkflags[@]}" 2>"$tmp/stderr2"; then
        local first
        first=$(grep -m1 -E '(^|: )(Fatal )?[Ee]rror:' "$tmp/stderr" | sed "s|$tmp/f[0-9]*/||g")
        for idx in "${fsrcs[@]}"; do
            [ "${new[$idx]}" = "${args[$idx]}" ] ||
                hp_ftn_warn "${args[$idx]}" "OpenMP constructs not instrumented: opari2's copy does not compile${first:+: $first}"
        done
        cat "$tmp/stderr2" >&2
        return 0
    fi
    cat "$tmp/stderr" >&2
    return 1
}

# hp_ftn_keep - with --keep, opari2's copy of X.f90 as X.inst.F90 (and
# its X.f90.opari.inc) next to the object.
hp_ftn_keep() {
    [ "$keep" = 1 ] || return 0
    local idx dir=. b
    [ -n "$obj" ] && dir=$(dirname "$obj")
    for idx in "${fsrcs[@]}"; do
        [ "${new[$idx]}" = "${args[$idx]}" ] && continue
        b=${new[$idx]##*/}
        cp "${new[$idx]}" "$dir/${b%.*}.inst.${b##*.}"
        cp "${new[$idx]%.*}".*.opari.inc "$dir/" 2>/dev/null || true
    done
}

# hp_ftn_init_file - at a tier-2 link: when the objects and archives
# linked hold opari2 regions, the init file that registers them, compiled
# into $tmp (its object's path on stdout).
hp_ftn_init_file() {
    local a objs=()
    for a in "${args[@]}"; do
        case $a in *.o|*.a|*.lo) [ -f "$a" ] && objs+=("$a") ;; esac
    done
    [ ${#objs[@]} -gt 0 ] && command -v opari2-config >/dev/null || return 0
    nm "${objs[@]}" 2>/dev/null | grep -qi ' T pomp2_init_reg_' || return 0
    # shellcheck disable=SC2046
    if $(opari2-config --nm) "${objs[@]}" 2>/dev/null | $(opari2-config --region-initialization) \
            >"$tmp/pomp2_init.c" 2>/dev/null && cc -c "$tmp/pomp2_init.c" -o "$tmp/pomp2_init.o" 2>/dev/null; then
        echo "$tmp/pomp2_init.o"
    else
        hp_ftn_warn "link" "opari2's init file could not be made: regions are registered at their first event"
    fi
}
