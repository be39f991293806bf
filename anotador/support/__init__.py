"""Small pieces every layer leans on: a thread-safe map of the entries used last (``lru``), and the one module
that reaches into other packages' internals, with why each use stays (``adapters``)."""
