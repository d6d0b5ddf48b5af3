"""An LP solution's values back in the program's cvxpy model (no Pyomo needed).

The Pyomo LP (:mod:`rldp_models.programs.linear_form`) reports every cvxpy
variable under :func:`variable_key`; :func:`load_cvxpy_values` gives those
values to the cvxpy model so the robust blocks' multipliers are read from it as
after a cvxpy solve. Reading a result needs only this module, so
:mod:`rldp_models.programs.solution` does not pull Pyomo in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.programs.protocol_program import ProtocolProgram


def variable_key(variable: cp.Variable) -> str:
    """The name a cvxpy variable's value is reported under by the Pyomo model."""
    return f"cvxpy:{variable.name()}#{variable.id}"


def load_cvxpy_values(program: ProtocolProgram, primal: dict[str, np.ndarray]) -> bool:
    """Set the cvxpy model's variables to an LP solution's values; False if it has none."""
    variables = program.to_cvxpy().problem.variables()
    if not variables or variable_key(variables[0]) not in primal:
        return False
    for variable in variables:
        variable.value = np.reshape(primal[variable_key(variable)], variable.shape)
    return True
