"""A variant from library blocks, solved, written as a record, verified from the command line."""

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import (NominalSecretPrivacy, ProtocolProgram, RobustDistortion,
                                  RobustSecretPrivacy)
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty import BoxSet, ChiSquareSet
from rldp_models.results.files import write_result

crosstab = Crosstab.from_array(np.array([[30, 20, 10], [15, 25, 40], [12, 18, 30]]),
                               ["a", "b", "c"], ["1", "2", "3"])
box = BoxSet.containing(ChiSquareSet.from_counts(crosstab.counts, alpha=0.05))
program = ProtocolProgram(crosstab, RobustDistortion(),                # worst case over the box
                          [RobustSecretPrivacy(2.0),                   # eps = 2 for all P in box
                           NominalSecretPrivacy(1.0)],                 # and eps = 1 at Phat
                          uncertainty=box, eps=2.0, name="RURP-box+nominal")
result = solution_result(program.solve())
print(f"{result.declaration.name}: {result.value['measure']} {result.value['value']:.5f}; "
      f"guarantees {[(g.notion, g.eps, g.holds) for g in result.guarantees]}")
out = Path(tempfile.mkdtemp()) / "variant.json"
write_result(result, out)                                              # counts embedded
verify = subprocess.run([sys.executable, "-m", "rldp_models.cli", "verify", str(out)],
                        capture_output=True, text=True)
print(verify.stdout, end="")
assert verify.returncode == 0, verify.stderr
