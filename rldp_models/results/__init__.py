"""One certified result for every protocol and mechanism and its record.

=================================  ===========================================
module                             idea
=================================  ===========================================
:mod:`~.certified`                 the :class:`CertifiedResult` dataclass
:mod:`~.record`                    ``to_record`` / ``from_record`` (JSON)
:mod:`~.schema`                    the versioned JSON Schema and validation
:mod:`~.migration`                 round-1 files and the producers' fields
:mod:`~.producers`                 each producer's result as a CertifiedResult
:mod:`~.factored_result`           IR, GRR-CR, UE-CR as exact factors ("product")
:mod:`~.blocks`                    blocks and sets as declarations, plug-ins
:mod:`~.counts`                    embedded counts and their digest
:mod:`~.files`                     hardened reading, guarded writing
=================================  ===========================================

Every producer finishes its matrix on the one repair path below all of them
(:mod:`rldp_models.finish`: dyadic rows, exact re-check, repair).
"""
