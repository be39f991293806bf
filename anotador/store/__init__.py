"""Storage: the database models (``models``), what the models do not say per database (``database``: SQLite
pragmas, write locks, the driver's statements), the guard that answers 503 when the database stops answering
(``guard``) and the schema's migrations (``migrations/``). Every read and write of a game is in
:mod:`anotador.sheets`."""
