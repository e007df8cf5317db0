"""Runs, tasks and memory as HTML: the self-contained run report (report.py) and the local web
app (app.py, `arcmemo serve`), sharing one set of Jinja2 templates (render.py, templates/).

Runs are read through the one reader of run directories (run/records/reader.py); runcache.py
keeps what the page read of each run while its files are unchanged, limits.py holds every page
to a time limit; charts.py turns runs into the numbers the charts plot. Only app.py, limits.py
and serve.py need the [web] extra (Starlette, uvicorn).
"""
