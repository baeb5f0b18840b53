"""gen_fortran.py - the Fortran bindings' wrappers, for gen_wrappers.py.

Each function of mpi_spec.txt that has a C wrapper gets one Fortran
wrapper too, exported under every name Open MPI's Fortran bindings use
(MPI_SEND, mpi_send, mpi_send_, mpi_send__ of mpif.h and `use mpi`;
mpi_send_f08_ of `use mpi_f08`, which has the same arguments and an
optional ierror).  It turns its by-reference Fortran arguments into the C
ones (hp_fortran.h: handles through PMPI_*_f2c, statuses, sentinels,
1-based indices, LOGICALs, character arguments with hidden lengths),
calls the same inline body as the C wrapper with its own return address
(so the record lands at the user's Fortran line), and converts the
results back the way Open MPI's binding does: only when the call
succeeded.

Which C argument becomes what is decided by its type and, for arrays,
by the spec's roles; what cannot be converted from the prototype alone
(procedure arguments, argument lists, Fortran attribute semantics) is
left to Open MPI's own binding (not interposed), and the coverage line
says so.
"""
import re

HANDLES = {
    "MPI_Comm": ("Comm", "MPI_COMM_NULL"),
    "MPI_Datatype": ("Type", "MPI_DATATYPE_NULL"),
    "MPI_File": ("File", "MPI_FILE_NULL"),
    "MPI_Win": ("Win", "MPI_WIN_NULL"),
    "MPI_Info": ("Info", "MPI_INFO_NULL"),
    "MPI_Group": ("Group", "MPI_GROUP_NULL"),
    "MPI_Op": ("Op", "MPI_OP_NULL"),
    "MPI_Errhandler": ("Errhandler", "MPI_ERRHANDLER_NULL"),
    "MPI_Request": ("Request", "MPI_REQUEST_NULL"),
    "MPI_Message": ("Message", "MPI_MESSAGE_NULL"),
}
# INTEGER(KIND=MPI_ADDRESS_KIND / MPI_OFFSET_KIND / MPI_COUNT_KIND)
WIDE = {"MPI_Aint", "MPI_Offset", "MPI_Count"}
# int * outputs that are LOGICAL in Fortran (MPI's names for them).
LOGICAL_OUT = {"flag", "commute", "weighted"}
# Kinds whose request or message argument is read and written back.
CONSUMES = {"complete_one", "start", "request_free", "cancel", "mrecv", "imrecv"}

NO_MEM = "MPI_ERR_NO_MEM"


class Unsupported(Exception):
    """A prototype the generator cannot convert; the text says why."""


class Param:
    def __init__(self, text):
        m = re.match(r"^(const\s+)?([\w ]*?\w)\s*(\**)\s*(\w+)\s*((\[[\s\d]*\])*)$", text.strip())
        if not m:
            raise Unsupported("an argument the generator cannot read: '%s'" % text)
        self.const = bool(m.group(1))
        self.base = m.group(2)
        self.ptr = len(m.group(3))
        self.name = m.group(4)
        self.array = bool(m.group(5))
        # the inner dimensions of an array of arrays: "[3]" of ranges[][3]
        self.inner = re.sub(r"^\[\s*\]", "", re.sub(r"\s", "", m.group(5)))


def params_of(f):
    if f["params"] in ("void", ""):
        return []
    if f["params"].endswith("..."):
        raise Unsupported("a variable argument list")
    return [Param(p) for p in f["params"].split(",")]


def consumed(f, p):
    """Is the handle behind pointer p read by the call as well as set?"""
    if re.search(r"_(free|commit|close|disconnect)$", f["name"]):
        return True
    return p.base in ("MPI_Request", "MPI_Message") and f["kind"] in CONSUMES


class Wrapper:
    """The pieces of one Fortran wrapper, filled argument by argument."""

    def __init__(self, f):
        self.f = f
        self.fparams, self.hidden, self.cargs = [], [], []
        # allocs: conditions that hold when a copy could be made (all must,
        # else the call is not made and ierror is MPI_ERR_NO_MEM)
        self.decls, self.allocs, self.posts, self.frees = [], [], [], []

    def role(self, name):
        return self.f["roles"].get(name)

    def handle(self, p):
        conv, null = HANDLES[p.base]
        self.fparams.append("MPI_Fint *%s" % p.name)
        if p.array and p.base == "MPI_Request":
            self.requests(p)
        elif p.array and p.base == "MPI_Datatype" and p.const:
            self.types(p)
        elif p.array:
            raise Unsupported("an array of %s handles as a result" % p.base)
        elif p.ptr == 0:
            self.decls.append("    %s c_%s = PMPI_%s_f2c(*%s);\n" % (p.base, p.name, conv, p.name))
            self.cargs.append("c_%s" % p.name)
        else:
            init = ("PMPI_%s_f2c(*%s)" % (conv, p.name)) if consumed(self.f, p) else null
            self.decls.append("    %s c_%s = %s;\n" % (p.base, p.name, init))
            self.cargs.append("&c_%s" % p.name)
            self.posts.append("        *%s = PMPI_%s_c2f(c_%s);\n" % (p.name, conv, p.name))

    def count_of(self, p):
        role = self.role("count")
        if not role:
            raise Unsupported("no count= role for the array %s" % p.name)
        return "*%s" % role

    def requests(self, p):
        n = self.count_of(p)
        self.decls.append("    hp_f_reqs r_%s;\n    r_%s.c = NULL;\n" % (p.name, p.name))
        self.allocs.append("hp_f_reqs_in(&r_%s, %s, %s) == 0" % (p.name, n, p.name))
        self.cargs.append("r_%s.c" % p.name)
        self.posts.append("        hp_f_reqs_out(&r_%s, %s, %s);\n" % (p.name, n, p.name))
        self.frees.append("    hp_f_reqs_free(&r_%s);\n" % p.name)

    def types(self, p):
        names = [q.name for q in params_of(self.f)]
        if "count" in names:
            n = "*count"
        elif "comm" in names:
            n = "hp_f_alltoallw_types(c_comm, %d, %d)" % (
                "neighbor" in self.f["name"].lower(), p.name.startswith("recv"))
        else:
            raise Unsupported("no length for the datatype array %s" % p.name)
        self.decls.append("    hp_f_types t_%s;\n    t_%s.c = NULL;\n" % (p.name, p.name))
        self.allocs.append("hp_f_types_in(&t_%s, %s, %s) == 0" % (p.name, n, p.name))
        self.cargs.append("t_%s.c" % p.name)
        self.frees.append("    hp_f_types_free(&t_%s);\n" % p.name)

    def status(self, p):
        self.fparams.append("MPI_Fint *%s" % p.name)
        if p.name == self.role("statuses"):
            self.statuses(p)
        elif p.const:
            self.decls.append("    MPI_Status c_%s;\n    PMPI_Status_f2c(%s, &c_%s);\n"
                              % (p.name, p.name, p.name))
            self.cargs.append("&c_%s" % p.name)
        elif self.f["name"].startswith("MPI_Status_set_"):
            self.decls.append("    MPI_Status c_%s;\n    PMPI_Status_f2c(%s, &c_%s);\n"
                              % (p.name, p.name, p.name))
            self.cargs.append("&c_%s" % p.name)
            self.posts.append("        PMPI_Status_c2f(&c_%s, %s);\n" % (p.name, p.name))
        else:
            self.decls.append("    MPI_Status s_%s;\n" % p.name)
            self.cargs.append("hp_f_status_ignored(%s) ? MPI_STATUS_IGNORE : &s_%s"
                              % (p.name, p.name))
            self.posts.append("        if (!hp_f_status_ignored(%s))\n"
                              "            PMPI_Status_c2f(&s_%s, %s);\n" % (p.name, p.name, p.name))

    def statuses(self, p):
        n = self.count_of(p)
        out = n
        if self.role("outcount"):
            o = self.role("outcount")
            out = "(*%s == MPI_UNDEFINED ? 0 : *%s)" % (o, o)
        self.decls.append("    hp_f_statuses s_%s;\n    s_%s.c = NULL;\n" % (p.name, p.name))
        self.allocs.append("hp_f_statuses_in(&s_%s, %s, %s) == 0" % (p.name, n, p.name))
        self.cargs.append("s_%s.c" % p.name)
        self.posts.append("        hp_f_statuses_out(&s_%s, %s, %s);\n" % (p.name, out, p.name))
        self.frees.append("    hp_f_statuses_free(&s_%s);\n" % p.name)

    def integer(self, p):
        const = "const " if p.const else ""
        self.fparams.append("%sMPI_Fint *%s" % (const, p.name))
        if p.ptr == 0 and not p.array:
            self.cargs.append("*%s" % p.name)
        elif p.name == self.role("index"):
            self.decls.append("    int c_%s = MPI_UNDEFINED;\n" % p.name)
            self.cargs.append("&c_%s" % p.name)
            self.posts.append("        *%s = hp_f_index(c_%s);\n" % (p.name, p.name))
        elif p.name in LOGICAL_OUT and not p.array:
            self.decls.append("    int c_%s = 0;\n" % p.name)
            self.cargs.append("&c_%s" % p.name)
            self.posts.append("        *%s = hp_f_logical(c_%s);\n" % (p.name, p.name))
        else:
            pointer = "(*)%s" % p.inner if p.inner else "*"
            self.cargs.append("(%sint %s)%s" % (const, pointer, p.name))
            if p.name == self.role("indices"):
                o = self.role("outcount")
                self.posts.append("        for (int i = 0; *%s != MPI_UNDEFINED && i < *%s; i++)\n"
                                  "            %s[i]++;\n" % (o, o, p.name))

    def wide(self, p):
        const = "const " if p.const or (p.ptr == 0 and not p.array) else ""
        self.fparams.append("%s%s *%s" % (const, p.base, p.name))
        self.cargs.append(p.name if p.ptr or p.array else "*%s" % p.name)

    def buffer(self, p):
        const = "const " if p.const else ""
        self.fparams.append("%svoid *%s" % (const, p.name))
        self.cargs.append("hp_f_buf(%s)" % p.name)

    def string(self, p):
        const = "const " if p.const else ""
        self.fparams.append("%schar *%s" % (const, p.name))
        self.hidden.append("size_t %s_len" % p.name)
        self.decls.append("    char *c_%s = NULL;\n" % p.name)
        if p.const:
            self.allocs.append("(c_%s = hp_f_str_in(%s, %s_len)) != NULL" % (p.name, p.name, p.name))
        else:
            self.allocs.append("(c_%s = hp_f_str_room(%s_len)) != NULL" % (p.name, p.name))
            self.posts.append("        hp_f_str_out(c_%s, %s, %s_len);\n" % (p.name, p.name, p.name))
        self.cargs.append("c_%s" % p.name)
        self.frees.append("    free(c_%s);\n" % p.name)

    def add(self, p):
        if p.base.endswith("_function"):
            raise Unsupported("a procedure argument (Fortran callbacks have their own arguments)")
        if p.base == "char" and (p.ptr > 1 or (p.ptr == 1 and p.array)):
            raise Unsupported("argument lists (arrays of strings)")
        if p.base in HANDLES:
            self.handle(p)
        elif p.base == "MPI_Status":
            self.status(p)
        elif p.base == "int":
            self.integer(p)
        elif p.base in WIDE:
            self.wide(p)
        elif p.base == "void" and p.ptr == 1:
            self.buffer(p)
        elif p.base == "char":
            self.string(p)
        else:
            raise Unsupported("an argument of type %s" % p.base)


def symbol(f):
    return "hp_f_" + f["name"]


def names(f):
    """Open MPI's Fortran names of f: mpif.h and `use mpi` in the four
    manglings, and the `use mpi_f08` entry point."""
    low = f["name"].lower()
    return [f["name"].upper(), low, low + "_", low + "__", low + "_f08_"]


def wrapper(f):
    """The C text of f's Fortran wrapper, or raises Unsupported."""
    w = Wrapper(f)
    for p in params_of(f):
        w.add(p)
    fparams = ", ".join(w.fparams + ["MPI_Fint *ierror"] + w.hidden)
    out = ["void %s(%s)\n{\n" % (symbol(f), fparams),
           "    uintptr_t ra = (uintptr_t)__builtin_return_address(0);\n",
           "    int rc = %s;\n" % NO_MEM]
    out += w.decls
    call = "rc = hp_body_%s(%s);\n" % (f["name"], ", ".join(["ra"] + w.cargs))
    indent = "    "
    if w.allocs:
        out.append("    if (%s) {\n" % " &&\n        ".join(w.allocs))
        indent = "        "
    out.append(indent + call)
    if w.posts:
        posts = [indent[4:] + line for post in w.posts for line in post.splitlines(True)]
        out.append(indent + "if (rc == MPI_SUCCESS) {\n")
        out += posts
        out.append(indent + "}\n")
    if w.allocs:
        out.append("    }\n")
    out += reversed(w.frees)
    out.append("    if (ierror)\n        *ierror = rc;\n}\n")
    for n in names(f):
        out.append("extern __typeof__(%s) %s __attribute__((alias(\"%s\"), visibility(\"default\")));\n"
                   % (symbol(f), n, symbol(f)))
    return "".join(out)


def why_not(f):
    """None when f gets a Fortran wrapper, else the reason it has none."""
    try:
        wrapper(f)
    except Unsupported as e:
        return "takes %s" % e
    return None
