"""Build the Cython extensions: every ``src/fastgo/*.pyx``, with OpenMP for the multi-core kernels.

Builds are incremental: Cython regenerates a C file only when its .pyx or a .pxd it cimports
changed, and an extension is recompiled only when its C file (or the build flavour) changed.
The generated C lives under ``build/``: ``build/cython`` for the normal build,
``build/cython-debug`` for the debug one, so switching between them reuses each one's files.

Environment switches:

- ``FASTGO_DEBUG=1``: no optimisation, the kernels' C bounds asserts on (FASTGO_ASSERT in
  core.pxd) and Python-style division checks.
- ``FASTGO_OPENMP=0``: build single-threaded, without OpenMP (every ``threads`` runs on one
  core; results are the same). Otherwise the compiler must support OpenMP, or the build stops
  with an error saying so: GCC ``-fopenmp``, MSVC ``/openmp``, Apple clang ``-Xpreprocessor
  -fopenmp -lomp`` with libomp (``brew install libomp``; found through ``brew --prefix libomp``
  or the CPPFLAGS/LDFLAGS the caller sets).
- ``FASTGO_ANNOTATE=1``: Cython's HTML annotation next to each .pyx.
- ``FASTGO_ONLY=name[,name]``: rebuild only those modules (a developer's shortcut).
"""

import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.modified import newer_group

DEBUG = os.environ.get("FASTGO_DEBUG", "0") not in ("", "0")
OPENMP = os.environ.get("FASTGO_OPENMP", "1") not in ("", "0")

# Python-level code keeps Cython's index checks in every build: a Python list or memoryview
# indexed out of range must raise, never crash. The kernels index raw C arrays, which these
# directives do not cover; their bounds are asserted (FASTGO_ASSERT) in the debug build.
directives = {
    "language_level": 3,
    "boundscheck": True,
    "wraparound": True,
    "initializedcheck": True,
    "cdivision": not DEBUG,
    "embedsignature": True,
}
macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"), ("FASTGO_DEBUG", "1" if DEBUG else "0")]
modules = sorted(os.path.basename(f)[:-4] for f in glob.glob("src/fastgo/*.pyx"))
if os.environ.get("FASTGO_ONLY"):
    modules = [m for m in modules if m in os.environ["FASTGO_ONLY"].split(",")]

# Every extension depends on this file, which names the build flavour: a build of another
# flavour rewrites it, so the next build recompiles (the .so files of both land in one place).
# numpy's version is part of it: its headers count by version, not by time stamp (a fresh
# isolated build environment unpacks them anew on every install).
FLAVOUR = os.path.join("build", "flavour.txt")
flavour = f"debug={int(DEBUG)} openmp={int(OPENMP)} numpy={np.__version__}\n"
os.makedirs("build", exist_ok=True)
if not os.path.exists(FLAVOUR) or open(FLAVOUR).read() != flavour:
    with open(FLAVOUR, "w") as f:
        f.write(flavour)

OMP_PROBE = "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n"

# GCC inlines a function declared inline only up to an estimated size (max-inline-insns-single,
# 200 at -O3); the playout kernel's test of a drawn point (playout.pxd's playout_allows) is
# larger, and its call and return were 35 of a 9x9 move's 432 instructions (callgrind). Other
# compilers do not take the flag (the build probes for it; clang ignores it with a warning).
INLINE_FLAGS = ["--param", "max-inline-insns-single=1000"]


def brew_prefix(formula):
    try:
        return subprocess.run(["brew", "--prefix", formula], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


class BuildExt(build_ext):
    """build_ext with the optimisation and OpenMP flags of the compiler in use."""

    def openmp_flags(self):
        """(compile args, link args, include dirs, library dirs) of OpenMP for this compiler."""
        if self.compiler.compiler_type == "msvc":
            return ["/openmp"], [], [], []
        if sys.platform == "darwin":          # Apple clang: the libomp runtime, from Homebrew
            prefix = brew_prefix("libomp")
            inc = [os.path.join(prefix, "include")] if prefix else []
            lib = [os.path.join(prefix, "lib")] if prefix else []
            return ["-Xpreprocessor", "-fopenmp"], ["-lomp"], inc, lib
        return ["-fopenmp"], ["-fopenmp"], [], []

    def probe(self, cflags, lflags, inc, lib, program=OMP_PROBE):
        """Whether the compiler builds and links `program` (an OpenMP program) with these flags."""
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "omp_probe.c")
            with open(src, "w") as f:
                f.write(program)
            try:
                objs = self.compiler.compile([src], output_dir=d, include_dirs=inc,
                                             extra_postargs=cflags)
                self.compiler.link_executable(objs, os.path.join(d, "omp_probe"),
                                              library_dirs=lib, extra_postargs=lflags)
            except Exception:                 # CompileError, LinkError
                return False
        return True

    def run(self):
        # Cython runs only when extensions are built (not for an sdist or metadata); the C files
        # replace the .pyx sources of the extensions setuptools has set up
        generated = cythonize_keeping_unchanged(
            self.extensions,
            compiler_directives=directives,
            annotate=os.environ.get("FASTGO_ANNOTATE", "0") not in ("", "0"),
            build_dir=os.path.join("build", "cython-debug" if DEBUG else "cython"),
        )
        sources = {e.name: e.sources for e in generated}
        for ext in self.extensions:
            ext.sources = sources[ext.name]
        super().run()

    def build_extension(self, ext):
        # An editable install (pip install -e) builds into a fresh temporary directory, then
        # copies the modules into src/: an up-to-date module there is reused, not recompiled.
        target = self.get_ext_fullpath(ext.name)
        in_source = os.path.join("src", *ext.name.split(".")[:-1], os.path.basename(target))
        if (not self.force and os.path.exists(in_source)
                and os.path.abspath(in_source) != os.path.abspath(target)
                and not newer_group(list(ext.sources) + list(ext.depends), in_source)):
            self.mkpath(os.path.dirname(target))
            self.copy_file(in_source, target)
            return
        super().build_extension(ext)

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        opt = (["/Od", "/Zi"] if msvc else ["-O0", "-g"]) if DEBUG else (["/O2"] if msvc else ["-O3"])
        cflags, lflags, inc, lib = [], [], [], []
        if OPENMP:
            cflags, lflags, inc, lib = self.openmp_flags()
            if not self.probe(cflags, lflags, inc, lib):
                sys.exit("error: fastgo needs a C compiler with OpenMP (GCC, MSVC, or clang with "
                         f"libomp); {self.compiler.compiler_type} could not build an OpenMP "
                         f"program with {' '.join(cflags + lflags)}. Install OpenMP (macOS: brew "
                         "install libomp), or build single-threaded with FASTGO_OPENMP=0 (every "
                         "threads= then runs on one core, with the same results).")
        # (-Werror: clang takes --param with a warning and ignores it)
        if not (msvc or DEBUG) and self.probe(INLINE_FLAGS + ["-Werror"], [], [], [],
                                              "int main(void) { return 0; }\n"):
            opt = opt + INLINE_FLAGS
        for ext in self.extensions:
            ext.extra_compile_args = opt + cflags
            ext.extra_link_args = lflags
            ext.include_dirs = ext.include_dirs + inc
            ext.library_dirs = ext.library_dirs + lib
        super().build_extensions()



# Cython's bookkeeping header at the top of a generated C file: the include paths and
# dependencies it was generated with, absolute paths into the build environment
_METADATA = re.compile(rb"/\* BEGIN: Cython Metadata\n.*?\nEND: Cython Metadata \*/\n", re.S)


def c_digest(path):
    """SHA-256 of a generated C file's code: its text without Cython's metadata header, which
    names the build environment's paths (a fresh one, e.g. /tmp/pip-build-env-*, on every
    isolated install) and is not compiled."""
    with open(path, "rb") as f:
        return hashlib.sha256(_METADATA.sub(b"", f.read(), count=1)).digest()


def cythonize_keeping_unchanged(extensions, **kw):
    """``cythonize``, with each regenerated C file whose code did not change given back its
    old time stamp: Cython regenerates a file when a dependency looks newer (numpy's .pxd in a
    fresh isolated build environment), and build_ext would then recompile it for nothing."""
    build_dir = kw["build_dir"]
    before = {c: (os.stat(c).st_mtime_ns, c_digest(c))
              for c in glob.glob(os.path.join(build_dir, "**", "*.c"), recursive=True)}
    result = cythonize(extensions, **kw)
    for c, (mtime, digest) in before.items():
        if os.path.exists(c) and os.stat(c).st_mtime_ns != mtime and c_digest(c) == digest:
            os.utime(c, ns=(mtime, mtime))
    return result


extensions = [
    Extension(
        f"fastgo.{name}",
        [f"src/fastgo/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=macros,
        depends=[FLAVOUR],
    )
    for name in modules
]

setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt})
