"""The advisor at run time: the solver's tables of each rule set, built in the background and kept on disk and
in memory (``tables``), who is winning made from them (``outlooks``), and play to win's CPU budget
(``weighing``). The mathematics is in :mod:`anotador.solver`; the views in :mod:`anotador.api`."""
