"""gunicorn settings of ``scripts/serve``: safe with no proxy in front.

``gunicorn -c python:anotador.gunicorn_conf wsgi:app``. The environment sets
the address (``BIND``), the processes (``WORKERS``) and threads per process
(``THREADS``); everything else is fixed here, with the reason beside it.
"""

import os

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WORKERS", "2"))
# A request is read whole in the worker's event loop before a thread and the
# app see it: a client trickling its headers costs a socket, not a worker
# (anotador/serving.py). Threads overlap the database's waits.
worker_class = "anotador.serving.BufferingWorker"
threads = int(os.environ.get("THREADS", "4"))
# Each instance its own: the default control socket ~/.gunicorn/gunicorn.ctl
# is shared by every gunicorn of one user, and they unlink each other's.
control_socket_disable = True
# After a crash (kill -9 of the master) its orphaned workers still hold the
# port for a moment; a new master binds beside them instead of giving up.
reuse_port = True
# SIGTERM: stop accepting, finish what is in flight (up to 20 s), exit.
graceful_timeout = 20
# A worker silent this long is stuck: killed and replaced.
timeout = 30
keepalive = 5
accesslog = "-"
# Request line and headers: far above anything a phone sends.
limit_request_line = 4094
limit_request_fields = 50
