"""Runs, tasks and memory as HTML: the self-contained run report (report.py) and the local web
app (app.py, `arcmemo serve`), sharing one set of Jinja2 templates (render.py, templates/).

rundata.py reads a run directory (also while it grows); charts.py turns runs into the numbers
the charts plot. Only app.py and serve.py need the [web] extra (Starlette, uvicorn).
"""
