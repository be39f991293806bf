"""HTTP plumbing every answer passes through: problem documents and request bodies (``errors``), the headers
every response gets (``headers``), cross-origin access (``cors``) and compressed answers kept (``compression``)."""
