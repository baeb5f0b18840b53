#!/usr/bin/env python3
"""gen_wrappers.py - generates the MPI wrappers from mpi_spec.txt.

Usage: gen_wrappers.py SPEC OUT_C OUT_H        the wrappers and their ids
       gen_wrappers.py --instrument SPEC OUT_H  hprof-instrument's table of
                                                local and siteless MPI calls
       gen_wrappers.py --coverage SPEC LIST     the coverage fragment of docs/mpi.md
       gen_wrappers.py --update-readme SPEC LIST docs/mpi.md
                                                rewrites that fragment in place

Every wrapper has the same shape: if nothing is being recorded, call the
PMPI_ function and return; otherwise time the call, find the node of its
call site (by return address) and hand the arguments that matter to one
recorder (record.c, io.c, neighbor.c), chosen by the line's KIND.  Nothing
per-function is written by hand except the KIND=manual functions (init.c).
Virtual time (hp_vtime.h) adds lines per KIND (VTIME, PRECALL, NEWCOMM)
and makes some calls itself (VTCALL, and blocking collectives as their
nonblocking counterparts: VT_NEEDS), when HPROF_VIRTUAL_TIME=1 only.
"""
import fnmatch
import re
import sys

import gen_fortran
import mpi_coverage

COLL_DEFAULTS = [
    ("comm", "MPI_COMM_NULL"), ("root", "0"), ("sbuf", "NULL"),
    ("scount", "0"), ("rcount", "0"),
    ("stype", "MPI_DATATYPE_NULL"), ("rtype", "MPI_DATATYPE_NULL"),
    ("scounts", "NULL"), ("rcounts", "NULL"),
    ("stypes", "NULL"), ("rtypes", "NULL"),
]
# hp_rma_args after its rule; win= and peer= are required.
RMA_DEFAULTS = [
    ("win", None), ("peer", None), ("ocount", "0"),
    ("otype", "MPI_DATATYPE_NULL"), ("rcount", "0"),
    ("rtype", "MPI_DATATYPE_NULL"), ("op", "MPI_OP_NULL"),
]

STATUS_SUBST = "    MPI_Status st_local;\n" \
               "    MPI_Status *st = {status} == MPI_STATUS_IGNORE ? &st_local : {status};\n"
# Calls that complete, start or free requests (or consume a probed
# message) note the post sequence number first (reqmap.c says why).
SEQ0 = "    uint64_t seq0 = hp_reqmap_now();\n"

# Copies of the request array (and statuses the caller ignores) for the
# Wait/Test families; without memory the call goes through unrecorded.
def scratch(statuses):
    return ("    hp_scratch s;\n"
            "    if (hp_scratch_init(&s, {count}, {requests}, %s) != 0) {{\n"
            "        hp_scratch_free(&s, %s);\n"
            "        return {passthrough};\n"
            "    }}\n") % (statuses, statuses)

# kind -> (lines before the call, lines after it).  {name} fields are
# roles from the spec; "node" and "dt" exist after the call.
KINDS = {
    "send": ("", "    hp_mpi_send_done(t, node, {comm}, {peer}, {count}, {type}, dt);\n"),
    "isend": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_p2p(t, node, *{request}, HP_REQ_SEND, {comm}, {peer}, {count}, {type}, dt, 0);\n"),
    "irecv": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_p2p(t, node, *{request}, HP_REQ_RECV, {comm}, {peer}, {count}, {type}, dt, 0);\n"),
    "send_init": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_p2p(t, node, *{request}, HP_REQ_SEND, {comm}, {peer}, {count}, {type}, dt, 1);\n"),
    "recv_init": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_p2p(t, node, *{request}, HP_REQ_RECV, {comm}, {peer}, {count}, {type}, dt, 1);\n"),
    "probe": ("", ""),
    "iprobe": ("", ""),
    "mprobe": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_message_seen(*{message}, {comm});\n"),
    "improbe": ("", "    if (rc == MPI_SUCCESS && *{flag})\n        hp_mpi_message_seen(*{message}, {comm});\n"),
    "mrecv": ("    MPI_Message msg = *{message};\n" + STATUS_SUBST + SEQ0,
              "    hp_mpi_mrecv_done(t, node, msg, st, dt, seq0);\n"),
    "imrecv": ("    MPI_Message msg = *{message};\n" + SEQ0,
               "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_mrecv(t, node, *{request}, msg, dt, seq0);\n"),
    "coll": ("{coll_args}    uint64_t sync = hp_mpi_coll_presync({comm});\n",
             "    hp_mpi_coll_done(t, node, &a, dt, sync);\n"),
    "icoll": ("{coll_args}", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_coll(t, node, *{request}, &a, dt);\n"),
    "rma": ("{rma_args}", "    if (rc == MPI_SUCCESS)\n        hp_mpi_rma_done(t, node, &a, dt);\n"),
    "rrma": ("{rma_args}", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_rma(t, node, *{request}, &a, dt);\n"),
    "win_create": ("", "    if (rc == MPI_SUCCESS)\n        hp_rma_window_created(*{win});\n"),
    "rma_sync": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_rma_sync(t, node, {win}, {peer}, dt);\n"),
    "rma_sync_all": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_rma_sync_all(t, node, dt);\n"),
    "comm_free": ("", ""),
    "complete_one": ("    MPI_Request before = *{request};\n" + STATUS_SUBST + SEQ0,
        "    if (rc == MPI_SUCCESS{flag_set})\n"
        "        hp_mpi_complete(t, &before, 1, NULL, 1, st, dt, seq0);\n"),
    "complete_any": (scratch("MPI_STATUSES_IGNORE") + STATUS_SUBST + SEQ0,
        "    if (rc == MPI_SUCCESS{flag_set} && *{index} != MPI_UNDEFINED)\n"
        "        hp_mpi_complete(t, s.before, {count}, {index}, 1, st, dt, seq0);\n"
        "    hp_scratch_free(&s, MPI_STATUSES_IGNORE);\n"),
    "complete_all": (scratch("{statuses}") + SEQ0,
        "    if (rc == MPI_SUCCESS{flag_set})\n"
        "        hp_mpi_complete(t, s.before, {count}, NULL, {count}, s.st, dt, seq0);\n"
        "    hp_scratch_free(&s, {statuses});\n"),
    "complete_some": (scratch("{statuses}") + SEQ0,
        "    if (rc == MPI_SUCCESS && *{outcount} != MPI_UNDEFINED)\n"
        "        hp_mpi_complete(t, s.before, {count}, {indices}, *{outcount}, s.st, dt, seq0);\n"
        "    hp_scratch_free(&s, {statuses});\n"),
    "start": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_started(t, {request}, 1, dt);\n"),
    "startall": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_started(t, {requests}, {count}, dt);\n"),
    "request_free": ("    MPI_Request before = *{request};\n" + SEQ0,
        "    if (rc == MPI_SUCCESS)\n        hp_mpi_request_freed(t, before, seq0);\n"),
    "cancel": ("    hp_mpi_cancels = 1;\n", ""),
    "timed": ("", ""),
    "local": ("", ""),
    # MPI-IO (io.c): bytes from the status or the completing Wait/Test's.
    "io_read": (STATUS_SUBST, "    if (rc == MPI_SUCCESS)\n        hp_mpi_io_done(t, node, st, 0, dt);\n"),
    "io_write": (STATUS_SUBST, "    if (rc == MPI_SUCCESS)\n        hp_mpi_io_done(t, node, st, 1, dt);\n"),
    "io_iread": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_io(t, node, *{request}, HP_PEER_FILE, 0, dt);\n"),
    "io_iwrite": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_req_io(t, node, *{request}, HP_PEER_FILE, 1, dt);\n"),
    "io_begin": ("", "    if (rc == MPI_SUCCESS)\n        hp_mpi_io_begin(t, node, {fh}, dt);\n"),
    "io_end_read": (STATUS_SUBST, "    if (rc == MPI_SUCCESS)\n        hp_mpi_io_end(t, node, {fh}, st, 0, dt);\n"),
    "io_end_write": (STATUS_SUBST, "    if (rc == MPI_SUCCESS)\n        hp_mpi_io_end(t, node, {fh}, st, 1, dt);\n"),
}
# Kinds whose call site is not a communication statement: a call site
# (HP_KIND_CALL) named after the MPI function, flagged HP_SITEF_MPI.
LOCAL_KINDS = {"local", "cancel"}
# Not wrapped at all; NAME may be a glob and PARAMETERS is the reason.
EXCLUDED = "excluded"
# Wrapped in C, but its Fortran bindings are left to the MPI library's
# own (not interposed); NAME may be a glob, PARAMETERS is the reason.
FORTRAN_EXCLUDED = "fortran_excluded"
# Kinds whose whole body is one recorder call (they time themselves).
DELEGATED = {"recv": "hp_mpi_recv", "sendrecv": "hp_mpi_sendrecv",
             "sendrecv_replace": "hp_mpi_sendrecv_replace"}


def parse_spec(path):
    """The wrapped functions, the excluded (name glob, reason) lines and
    the fortran_excluded ones."""
    funcs, excluded, fexcluded, seen = [], [], [], {}
    for lineno, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = "%s:%d" % (path, lineno)
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 4:
            sys.exit("%s: expected 4 fields separated by '|'" % where)
        name, kind, roles, params = parts
        key = (name, kind == FORTRAN_EXCLUDED)
        if key in seen:
            sys.exit("%s: %s is already specified at %s" % (where, name, seen[key]))
        seen[key] = where
        if kind in (EXCLUDED, FORTRAN_EXCLUDED):
            if not params:
                sys.exit("%s: an excluded line gives its reason" % where)
            (excluded if kind == EXCLUDED else fexcluded).append(
                {"name": name, "why": params, "where": where})
            continue
        if kind not in KINDS and kind not in DELEGATED and kind != "manual":
            sys.exit("%s: unknown kind '%s'" % (where, kind))
        if not re.match(r"^MPI_\w+$", name):
            sys.exit("%s: '%s' is not an MPI function name" % (where, name))
        role_map = dict(r.split("=", 1) for r in roles.split()) if roles else {}
        funcs.append({"name": name, "kind": kind, "roles": role_map,
                      "params": params, "args": param_names(params),
                      "where": where})
    for f in funcs:
        for e in excluded:
            if fnmatch.fnmatchcase(f["name"], e["name"]):
                sys.exit("%s: %s is wrapped, but %s excludes it" % (f["where"], f["name"], e["where"]))
    for e in fexcluded:
        if not any(fnmatch.fnmatchcase(f["name"], e["name"]) for f in funcs):
            sys.exit("%s: %s matches no wrapped function" % (e["where"], e["name"]))
    return funcs, excluded, fexcluded


def param_names(params):
    if params in ("void", "") or params.endswith("..."):
        return []
    names = []
    for p in params.split(","):
        m = re.search(r"(\w+)\s*(\[[\s\d]*\])*\s*$", p.strip())
        names.append(m.group(1))
    return names


def coll_args(f):
    roles = f["roles"]
    values = [roles.get(r, d) for r, d in COLL_DEFAULTS]
    return ("    hp_coll_args a = {HP_COLL_%s, %s};\n"
            % (roles["rule"], ", ".join(values)))


def rma_args(f):
    roles = f["roles"]
    for r in ["rule"] + [r for r, d in RMA_DEFAULTS if d is None]:
        if r not in roles:
            sys.exit("%s: kind %s needs role %s" % (f["where"], f["kind"], r))
    values = [roles.get(r, d) for r, d in RMA_DEFAULTS]
    return ("    hp_rma_args a = {HP_RMA_%s, %s};\n"
            % (roles["rule"], ", ".join(values)))


def fill(template, f):
    fields = dict(f["roles"])
    fields["passthrough"] = "P%s(%s)" % (f["name"], call_args(f, {}))
    fields["flag_set"] = " && *%s" % fields["flag"] if "flag" in fields else ""
    # virtual time's resolution of deferred receives (hp_vt_resolve)
    fields["blocking"] = ("0" if "flag" in fields else
                          "2" if f["kind"] in ("complete_one", "complete_all") else "1")
    if "{passthrough}" in template and f["kind"] in PRECALL:  # the scratch's fallback
        fields["passthrough"] = "(%s, %s)" % (PRECALL_EXPR.format(**fields), fields["passthrough"])
    if "{coll_args}" in template:
        fields["coll_args"] = coll_args(f)
    if "{rma_args}" in template:
        fields["rma_args"] = rma_args(f)
    if "{status}" in template and "status" not in fields:
        fields["status"] = "status"
    try:
        return template.format(**fields)
    except KeyError as e:
        sys.exit("%s: kind %s needs role %s" % (f["where"], f["kind"], e))


def call_args(f, subst):
    return ", ".join(subst.get(a, a) for a in f["args"])


# Lines that run even when nothing is recorded (hp_mpi_begin gives NULL):
# a freed communicator's cached translation must go, or a new one that
# gets the same handle would be translated with it.
ALWAYS = {
    "comm_free": "    if (hp_mpi_active)\n        hp_rankmap_forget(*{comm});\n"
                 "    if (hp_vt_on)\n        hp_vt_comm_freed(*{comm});\n",
}
# Virtual time (hp_vtime.h), also when nothing is recorded: a send's
# header goes first.
VTIME = {
    "send": "    if (hp_vt_on)\n        hp_vt_send_header({comm}, {peer}, {tag});\n",
    "isend": "    if (hp_vt_on)\n        hp_vt_send_header({comm}, {peer}, {tag});\n",
    "icoll": "    if (hp_vt_on)\n        hp_vt_coll_started({comm});\n",
    "start": "    if (hp_vt_on)\n        hp_vt_started({request}, 1);\n",
    "startall": "    if (hp_vt_on)\n        hp_vt_started({requests}, {count});\n",
    "request_free": "    if (hp_vt_on)\n        hp_vt_request_freed({request});\n",
}
# ... a new communicator (ROLES newcomm=) gets its shadow;
NEWCOMM = "    if (rc == MPI_SUCCESS && hp_vt_on)\n        hp_vt_comm_created(*{newcomm});\n"
# ... a Wait/Test call first receives the messages of the wildcard
# receives it completes (timed with the call);
PRECALL = {
    "complete_one": "    if (hp_vt_on)\n        hp_vt_resolve({request}, 1, {blocking});\n",
    "complete_any": "    if (hp_vt_on)\n        hp_vt_resolve({requests}, {count}, {blocking});\n",
    "complete_all": "    if (hp_vt_on)\n        hp_vt_resolve({requests}, {count}, {blocking});\n",
    "complete_some": "    if (hp_vt_on)\n        hp_vt_resolve({requests}, {count}, {blocking});\n",
}
PRECALL_EXPR = "hp_vt_on ? hp_vt_resolve({requests}, {count}, {blocking}) : (void)0"
# ... and some calls are made by it: a receive picks its sender (a
# blocking one, when nothing is recorded; hp_mpi_recv does when it is).
VTCALL = {"recv": "hp_vt_recv_plain", "irecv": "hp_vt_irecv", "probe": "hp_vt_probe",
          "iprobe": "hp_vt_iprobe", "mprobe": "hp_vt_user_mprobe",
          "improbe": "hp_vt_user_improbe"}


# ... and a blocking collective on a controlled communicator runs as its
# nonblocking counterpart (the spec's MPI_I<name> with the same
# parameters and a request) while answering clock requests; whom it
# waits for, by rule (others: none known).
VT_NEEDS = dict([(r, "ALL") for r in ("BARRIER", "ALLREDUCE", "ALLGATHER", "ALLGATHERV",
                                      "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "REDUCE_SCATTER",
                                      "REDUCE_SCATTER_BLOCK")] +
                [(r, "ALL_AT_ROOT") for r in ("REDUCE", "GATHER", "GATHERV")] +
                [(r, "ROOT") for r in ("BCAST", "SCATTER", "SCATTERV")] +
                [(r, "BELOW") for r in ("SCAN", "EXSCAN")])


def link_nonblocking(funcs):
    """Gives each blocking collective its nonblocking counterpart's name
    (f["vt_icoll"]) when the spec has one of the same parameters."""
    by_name = dict((f["name"], f) for f in funcs)
    for f in funcs:
        i = by_name.get("MPI_I" + f["name"][4:].lower())
        if f["kind"] == "coll" and i and i["kind"] == "icoll" and \
                i["args"] == f["args"] + [i["roles"].get("request")]:
            f["vt_icoll"] = i["name"]


def vt_collective(f, args, call):
    roles = f["roles"]
    needs = VT_NEEDS.get(roles.get("rule"), "NONE")
    start = "P%s(%s, &hp_vt_coll_req)" % (f["vt_icoll"], args)
    return ("(hp_vt_on && hp_vt_controls(%s) ? hp_vt_coll_wait(%s, %s, HP_VT_NEEDS_%s, %s) : %s)"
            % (roles["comm"], start, roles["comm"], needs, roles.get("root", "0"), call))


# ... a persistent request is remembered, so that each MPI_Start of a
# send sends its header and each of a receive posts its header's receive.
VTINIT = {"send_init": "1", "recv_init": "0"}
# ... and a communicator constructor over all of its parent's members
# (the first parameter) first meets them in a barrier that answers clock
# requests, as a blocking collective does, timed with the call (MPI's
# constructor, which answers nothing, then waits for no one).
CONSTRUCTOR_EXCEPT = ("MPI_Comm_create_group",)   # over a group only
CONSTRUCTOR_ALSO = ("MPI_Intercomm_create",)      # over local_comm, then the leaders


def vt_constructor(f):
    return ("newcomm" in f["roles"] or f["name"] in CONSTRUCTOR_ALSO) and \
        f["name"] not in CONSTRUCTOR_EXCEPT and f["params"].startswith("MPI_Comm ")


def mpi_call(f, subst):
    """The call of the MPI function itself (virtual time's, when on)."""
    args = call_args(f, subst)
    call = "P%s(%s)" % (f["name"], args)
    if f["kind"] in VTCALL:
        call = "(hp_vt_on ? %s(%s) : %s)" % (VTCALL[f["kind"]], args, call)
    if f["kind"] in VTINIT:
        r = f["roles"]
        call = "(hp_vt_on ? hp_vt_persistent(%s, %s, %s, %s, %s, %s) : %s)" % (
            call, r["request"], r["comm"], r["peer"], r["tag"], VTINIT[f["kind"]], call)
    if vt_constructor(f):
        call = "(hp_vt_on ? (hp_vt_comm_entered(%s), %s) : %s)" % (f["args"][0], call, call)
    if "vt_icoll" in f:
        call = vt_collective(f, args, call)
    return call


def passthrough(f):
    """The wrapper's return when nothing is recorded."""
    call = mpi_call(f, {})
    pre = fill(PRECALL.get(f["kind"], ""), f)
    if "newcomm" in f["roles"]:
        return ("    if (!t) {\n        int rc = %s;\n%s        return rc;\n    }\n"
                % (call, "".join("    " + l + "\n" for l in fill(NEWCOMM, f).splitlines())))
    if pre:
        return ("    if (!t) {\n%s        return %s;\n    }\n"
                % ("".join("    " + l + "\n" for l in pre.splitlines()), call))
    return "    if (!t)\n        return %s;\n" % call


def body(f, fid):
    """The wrapper's work, inline, for the C wrapper and the Fortran one
    (gen_fortran.py) alike: ra is the return address in the caller."""
    name, kind = f["name"], f["kind"]
    params = "" if f["params"] in ("void", "") else ", " + f["params"]
    out = ["static inline __attribute__((always_inline)) int\nhp_body_%s(uintptr_t ra%s)\n{\n"
           % (name, params),
           fill(ALWAYS.get(kind, ""), f),
           fill(VTIME.get(kind, ""), f),
           "    hp_thread *t = hp_mpi_begin();\n",
           passthrough(f)]
    if kind in DELEGATED:
        out.append("    return %s(t, ra, %s);\n}\n" % (DELEGATED[kind], call_args(f, {})))
        return "".join(out)
    before, after = KINDS[kind]
    subst = {}
    if "st_local" in before:
        subst[f["roles"].get("status", "status")] = "st"
    if "hp_scratch_init" in before and "statuses" in f["roles"]:
        subst[f["roles"]["statuses"]] = "s.st"
    out.append(fill(before, f))
    out.append("    uint64_t t0 = hp_ticks();\n")
    if kind not in LOCAL_KINDS:
        out.append("    hp_event_call_begin(t, ra, %s, t0);\n" % fid)
    out.append(fill(PRECALL.get(kind, ""), f))
    out.append("    int rc = %s;\n" % mpi_call(f, subst))
    out.append("    uint64_t dt = hp_ticks() - t0;\n")
    if kind not in LOCAL_KINDS:
        out.append("    hp_event_call_end(t);\n")
    if kind in LOCAL_KINDS:
        out.append("    uint32_t node = hp_mpi_local_node(t, ra, %s);\n" % fid)
        out.append("    hp_mpi_local_time(t, node, dt);\n")
    else:
        out.append("    uint32_t node = hp_mpi_node(t, ra, %s);\n" % fid)
        total = "dt + sync" if kind == "coll" else "dt"
        out.append("    hp_mpi_node_time(t, node, %s);\n" % total)
    out.append(fill(after, f))
    if "newcomm" in f["roles"]:
        out.append(fill(NEWCOMM, f))
    out.append("    return rc;\n}\n")
    return "".join(out)


def wrapper(f):
    """The C wrapper: the body at the caller's return address."""
    args = ", ".join(["(uintptr_t)__builtin_return_address(0)"] + f["args"])
    return ("HP_MPI_API int %s(%s)\n{\n    return hp_body_%s(%s);\n}\n"
            % (f["name"], f["params"], f["name"], args))


def write_header(funcs, path):
    with open(path, "w") as h:
        h.write("/* hp_mpi_ids.h - generated by gen_wrappers.py from mpi_spec.txt; "
                "do not edit. */\n#ifndef HP_MPI_IDS_H\n#define HP_MPI_IDS_H\n\n"
                "#include <stdint.h>\n\nenum hp_mpi_id {\n")
        for f in funcs:
            h.write("    HP_%s,\n" % f["name"])
        h.write("    HP_MPI_NFUNCS\n};\n\n"
                "extern const char *const hp_mpi_names[HP_MPI_NFUNCS];\n"
                "extern const uint32_t hp_mpi_site_flags[HP_MPI_NFUNCS];\n\n#endif\n")


def deprecated(f, text):
    """A function MPI deprecates but still has (ROLES deprecated=yes) is
    wrapped on purpose: its wrapper calls the deprecated PMPI_ version."""
    if f["roles"].get("deprecated") != "yes":
        return text
    return ("#pragma GCC diagnostic push\n"
            "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n"
            "%s#pragma GCC diagnostic pop\n" % text)


def site_flags(f):
    if f["kind"] in ("coll", "icoll"):
        return "HP_SITEF_COLLECTIVE"
    if f["kind"] in LOCAL_KINDS or f["roles"].get("site") == "call":
        return "HP_SITEF_MPI"
    return "0"


def fortran_wrapped(f, fexcluded):
    """Does f get a Fortran wrapper (gen_fortran.py)?"""
    if f["kind"] == "manual" or any(fnmatch.fnmatchcase(f["name"], e["name"]) for e in fexcluded):
        return False
    return gen_fortran.why_not(f) is None


def fortran_coverage(funcs, fexcluded):
    """(wrapped in Fortran, [(name, reason)] of the C-wrapped ones that
    are not), for the coverage line of docs/mpi.md."""
    done, left = [], []
    for f in funcs:
        if f["kind"] == "manual":
            done.append(f["name"])
            continue
        why = next((e["why"] for e in fexcluded if fnmatch.fnmatchcase(f["name"], e["name"])),
                   gen_fortran.why_not(f))
        if why:
            left.append((f["name"], why))
        else:
            done.append(f["name"])
    return done, left


def write_source(funcs, fexcluded, path):
    with open(path, "w") as c:
        c.write("/* wrappers.c - generated by gen_wrappers.py from mpi_spec.txt; "
                "do not edit.\n * The C wrappers and, for each, the wrapper of its "
                "Fortran bindings. */\n#include <stdlib.h>\n#include \"hp_mpi.h\"\n"
                "#include \"hp_fortran.h\"\n#include \"hp_vtime.h\"\n\n")
        c.write("const char *const hp_mpi_names[HP_MPI_NFUNCS] = {\n")
        for f in funcs:
            c.write("    \"%s\",\n" % f["name"])
        c.write("};\n\nconst uint32_t hp_mpi_site_flags[HP_MPI_NFUNCS] = {\n")
        for f in funcs:
            c.write("    %s,\n" % site_flags(f))
        c.write("};\n")
        for f in funcs:
            if f["kind"] == "manual":
                continue
            c.write("\n" + deprecated(f, body(f, "HP_" + f["name"]) + "\n" + wrapper(f)))
            if fortran_wrapped(f, fexcluded):
                c.write("\n" + gen_fortran.wrapper(f))


def c_strings(names):
    return "".join("    \"%s\",\n" % n for n in names) + "    NULL\n"


def write_instrument_header(funcs, excluded, path):
    """Tier 2 records KIND local calls as call statements and gives the
    hand-written and excluded ones no site; every other MPI_* call is a
    communication statement."""
    calls = sorted(f["name"] for f in funcs if f["kind"] in LOCAL_KINDS)
    nosite = sorted([f["name"] for f in funcs if f["kind"] == "manual"] +
                    [e["name"] for e in excluded])
    with open(path, "w") as h:
        h.write("/* hpi_mpi_kinds.h - generated by pmpi/gen_wrappers.py from "
                "pmpi/mpi_spec.txt; do not edit.\n"
                " * hpi_mpi_calls: MPI functions that are call statements, not "
                "communication\n * (spec KIND local); hpi_mpi_nosite: names and "
                "globs that get no site\n * (KIND manual and excluded). */\n"
                "static const char *const hpi_mpi_calls[] = {\n")
        h.write(c_strings(calls))
        h.write("};\n\nstatic const char *const hpi_mpi_nosite[] = {\n")
        h.write(c_strings(nosite))
        h.write("};\n")


def usage():
    sys.exit(__doc__.split("\n\n")[1])


def main():
    args = sys.argv[1:]
    if len(args) == 3 and not args[0].startswith("--"):
        funcs, _, fexcluded = parse_spec(args[0])
        link_nonblocking(funcs)
        write_header(funcs, args[2])
        write_source(funcs, fexcluded, args[1])
    elif len(args) == 3 and args[0] == "--instrument":
        funcs, excluded, _ = parse_spec(args[1])
        write_instrument_header(funcs, excluded, args[2])
    elif len(args) == 3 and args[0] == "--coverage":
        funcs, excluded, fexcluded = parse_spec(args[1])
        sys.stdout.write(mpi_coverage.fragment(funcs, excluded, args[2],
                                               fortran_coverage(funcs, fexcluded)))
    elif len(args) == 4 and args[0] == "--update-readme":
        funcs, excluded, fexcluded = parse_spec(args[1])
        mpi_coverage.update_readme(args[3], mpi_coverage.fragment(
            funcs, excluded, args[2], fortran_coverage(funcs, fexcluded)))
    else:
        usage()


if __name__ == "__main__":
    main()
