"""The audit of the seeds: each numbered formula of the five source papers that geonh implements,
its printed form, the form geonh computes from brackets, and the verdict
(agrees / misprint / needs a hypothesis), decided by computation on an example.

``geonh.audit()`` runs it (``geonh audit`` on the command line); :mod:`.ledger` holds the
machinery and one module per paper holds its formulas:
:mod:`.hamel` and :mod:`.hamel_forms` (Hamel 1924, seed 000), :mod:`.aumann` (Aumann 1971, 001),
:mod:`.appell` (Appell 1911, 002), :mod:`.juschkov_newton` and :mod:`.juschkov_maggi` (Juschkov,
003), :mod:`.neimark_fufaev` (Neimark & Fufaev 1960, 004).
"""
from .ledger import SOURCES, AuditReport, AuditRow, Finding, Formula, audit, formulas

__all__ = ["SOURCES", "AuditReport", "AuditRow", "Finding", "Formula", "audit", "formulas"]
