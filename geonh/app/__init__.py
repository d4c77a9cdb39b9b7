"""The application floor: everything that turns a model name into output for a person.

:mod:`geonh.app.cli` (the ``geonh`` command), :mod:`geonh.app.workbench` (the model-level
tasks), :mod:`geonh.app.report` (the HTML page) and :mod:`geonh.app.plotting` (figures).  This
is the top floor: it imports from every layer of the library, and nothing in the library
imports it.
"""
