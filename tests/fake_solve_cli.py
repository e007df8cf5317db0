"""`arcmemo` with a scripted fake model registered: a real process for the kill/resume test.

Usage: python tests/fake_solve_cli.py solve ... --solver-model fake ...
FAKE_DELAY (seconds per solve answer) slows it down enough to be killed mid-run; FAKE_RAY=1
starts a local Ray instance whose workers have the same scripted model (--executor ray).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from runner_support import script_run

from arcmemo.llm.backend import register_model
from arcmemo.llm.fake import FakeModel

fake = FakeModel("fake")
register_model("fake", fake)
script_run(fake, delay_s=float(os.environ.get("FAKE_DELAY", "0")))

if os.environ.get("FAKE_RAY"):       # --executor ray: a local Ray instance whose workers script the fake too
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={
        "env_vars": {"PYTHONPATH": os.path.dirname(__file__)},
        "worker_process_setup_hook": "runner_support.register_scripted_fake"})

from arcmemo.cli import cli  # noqa: E402

cli.main(sys.argv[1:], prog_name="arcmemo")
