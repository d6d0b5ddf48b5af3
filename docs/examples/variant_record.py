"""A variant from library blocks, solved, written as a record, verified from the record alone
(``rldp_models.verify``, the Python call of ``rldp verify``)."""

import tempfile
from pathlib import Path

import numpy as np

import rldp_models
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
verified = rldp_models.verify(out)                                     # as rldp verify out
print(verified.summary())
assert verified.exit_code == 0
