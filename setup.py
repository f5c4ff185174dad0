"""Build the Cython extensions: every ``src/fastgo/*.pyx``, with OpenMP for the multi-core kernels.

FASTGO_DEBUG=1 builds without optimisation and with the kernels' C bounds asserts on (FASTGO_ASSERT
in core.pxd) and Python-style division checks; FASTGO_ANNOTATE=1 writes Cython's HTML annotation
next to each .pyx; FASTGO_ONLY=name[,name] rebuilds only those modules (a developer's shortcut)."""

import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FASTGO_DEBUG", "0") not in ("", "0")

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
cflags = (["-O0", "-g"] if DEBUG else ["-O3"]) + ["-fopenmp"]
modules = sorted(os.path.basename(f)[:-4] for f in glob.glob("src/fastgo/*.pyx"))
if os.environ.get("FASTGO_ONLY"):
    modules = [m for m in modules if m in os.environ["FASTGO_ONLY"].split(",")]

extensions = [
    Extension(
        f"fastgo.{name}",
        [f"src/fastgo/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=macros,
        extra_compile_args=cflags,
        extra_link_args=["-fopenmp"],
    )
    for name in modules
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        annotate=os.environ.get("FASTGO_ANNOTATE", "0") not in ("", "0"),
        # a debug build must not reuse C files generated for the other build
        force=True,
    ),
)
