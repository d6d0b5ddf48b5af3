"""The Python API leaves standard output to the caller: no solver banner reaches it.

HiGHS 1.16 prints its copyright banner when the first ``highspy.Highs`` of a process is
built (the CLI spends it on the null device first); ``rldp_models.solve`` builds one in the
optimality certificate's reweighting LP, so a notebook or a script piping its own output saw
the banner. Run in a fresh interpreter, since the banner is printed once per process.
"""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import numpy as np
import rldp_models
from rldp_models.data import Crosstab
table = Crosstab.from_array(np.array([[20, 68, 5, 15], [94, 7, 16, 10], [84, 119, 29, 54]]))
result = rldp_models.solve("RURP", table, eps=1, distortion="hamming")
rldp_models.verify(result)
print("done")
"""


def test_solve_and_verify_print_nothing_to_stdout() -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=120, check=True)
    assert run.stdout == "done\n"
