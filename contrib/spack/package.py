# contrib/spack/package.py - a Spack recipe for hprof, a profiler for
# hybrid MPI+OpenMP programs (C, C++, Fortran).  Copy this directory into a
# Spack repository as packages/hprof/ (`spack repo create`, then
# `spack repo add`), or use it from a checkout with `spack dev-build`.
#
# What configure finds by itself (PAPI, libunwind, gfortran) the variants
# turn off through configure's cache variables, so a ~papi build does not
# pick up a PAPI that happens to be on the system.
from spack.package import *


class Hprof(AutotoolsPackage):
    """Statistical profiler for hybrid MPI+OpenMP programs: every MPI call,
    OpenMP construct, procedure and loop is a record of its calling context
    tied to a line of source (tier 0: -lhprof; tiers 1 and 2: hprof-cc)."""

    # hprof has no public download address yet, so this recipe fetches
    # nothing: build a checkout or an unpacked `make dist` tarball in place
    # with `spack dev-build hprof@main` (or `@0.1.0`) from its directory.
    # When the project publishes a release, add `homepage`, and `url` with
    # each version's sha256.
    version("main")
    version("0.1.0")

    variant("papi", default=False, description="Hardware counters per record (HPROF_COUNTERS)")
    variant("libunwind", default=True,
            description="libunwind for call paths through frames without a simple CFI rule")
    variant("fortran", default=True,
            description="The Fortran module of `use hprof` and hprof-cc's Fortran part (opari2)")
    variant("libedit", default=True, description="Line editing in hprof-query -i")

    # From a git checkout, configure is made by autoreconf.
    depends_on("autoconf", type="build", when="@main")
    depends_on("automake", type="build", when="@main")
    depends_on("libtool", type="build", when="@main")
    depends_on("m4", type="build", when="@main")
    depends_on("pkgconfig", type="build")
    depends_on("python@3:", type="build")   # generates the MPI wrappers

    depends_on("mpi")
    depends_on("sqlite@3:")
    depends_on("elfutils")                  # libdw: call sites to file:line
    # libclang for hprof-instrument (tier 2) and hprof-cc's policy (tier 1);
    # hprof is developed and tested with libclang 14.
    depends_on("llvm@14 +clang")
    depends_on("papi", when="+papi")
    depends_on("libunwind", when="+libunwind")
    depends_on("libedit", when="+libedit")
    depends_on("opari2", type="run", when="+fortran")
    depends_on("cmocka", type="test")       # the unit tests of `make check`

    def autoreconf(self, spec, prefix):
        autoreconf_args = ["-fi"]
        which("autoreconf")(*autoreconf_args)

    def configure_args(self):
        spec = self.spec
        args = []
        llvm_config = join_path(spec["llvm"].prefix.bin, "llvm-config")
        args.append("LLVM_CONFIG={0}".format(llvm_config))
        if spec.satisfies("~papi"):
            args.append("ac_cv_lib_papi_PAPI_library_init=no")
        if spec.satisfies("~libunwind"):
            args.append("ac_cv_lib_unwind_unw_backtrace=no")
        if spec.satisfies("~fortran"):
            args.append("HPROF_GFORTRAN=no")
        if spec.satisfies("~libedit"):
            args.append("--without-libedit")
        return args

    def setup_run_environment(self, env):
        # hprof-cc finds hprof-instrument, hprof.h and libhprof under its
        # own prefix; LD_PRELOAD=libhprof.so needs the library's directory.
        env.prepend_path("LD_LIBRARY_PATH", self.prefix.lib)
