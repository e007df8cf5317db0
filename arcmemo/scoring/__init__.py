"""Scoring: oracle@k and the strict score (scores.py), the paper's per-depth table of a
run's threads (threads.py), the score every view of a run headlines and the ARC Prize score
beside it (runscore.py), submission files in the ARC Prize harness shape
(submissions.py, harness.py), Kaggle's submission.json (kaggle.py), and scoring other
tools' submissions (rescore.py).

The only package that reads test outputs besides the run loop that hands them over.
"""

from arcmemo.scoring.harness import CallUse, Share, attempt_metadata
from arcmemo.scoring.kaggle import KaggleExport, read_kaggle, write_kaggle
from arcmemo.scoring.rescore import Rescored, rescore
from arcmemo.scoring.runscore import ARC_PRIZE, RunScore, run_score
from arcmemo.scoring.scores import (
                                    OFFICIAL_K,
                                    TaskScore,
                                    attempts_from_predictions,
                                    oracle_at_k,
                                    score_task,
                                    strict_score,
)
from arcmemo.scoring.submissions import (
                                         SubmissionError,
                                         SubmissionScore,
                                         read_submission,
                                         read_submission_dir,
                                         score_predictions,
                                         score_submission_dir,
                                         write_submission,
)
from arcmemo.scoring.threads import (
    DepthTable,
    PuzzleThreads,
    ThreadFinal,
    depth_table,
    puzzle_from_steps,
    step_verdicts,
    submitted_attempts,
)

__all__ = ["OFFICIAL_K", "TaskScore", "attempts_from_predictions", "oracle_at_k", "score_task", "strict_score",
           "SubmissionError", "SubmissionScore", "read_submission", "read_submission_dir", "score_predictions",
           "score_submission_dir", "write_submission", "CallUse", "Share", "attempt_metadata",
           "KaggleExport", "read_kaggle", "write_kaggle", "Rescored", "rescore",
           "DepthTable", "PuzzleThreads", "ThreadFinal", "depth_table", "puzzle_from_steps", "step_verdicts",
           "submitted_attempts", "ARC_PRIZE", "RunScore", "run_score"]
