"""Scoring: oracle@k and the strict score (scores.py), the paper's per-depth table of a
run's threads (threads.py), the score every view of a run headlines and the ARC Prize score
beside it (runscore.py), submission files in the ARC Prize harness shape
(submissions.py, harness.py), Kaggle's submission.json (kaggle.py), and scoring other
tools' submissions (rescoring.py).

The only package that reads test outputs besides the run loop that hands them over.
"""

from arcmemo.core.lazy import lazy_exports

# each name imported from its module on first use: `runs list` needs runscore.py, not the
# harness, Kaggle or rescoring modules (nor the task loading they use)
__getattr__, __dir__ = lazy_exports(__name__, {
    "arcmemo.scoring.harness": ["CallUse", "Share", "attempt_metadata"],
    "arcmemo.scoring.kaggle": ["KaggleExport", "read_kaggle", "write_kaggle"],
    "arcmemo.scoring.rescoring": ["Rescored", "rescore"],
    "arcmemo.scoring.runscore": ["ARC_PRIZE", "RunScore", "run_score"],
    "arcmemo.scoring.scores": ["OFFICIAL_K", "TaskScore", "attempts_from_predictions", "oracle_at_k", "score_task",
                               "strict_score"],
    "arcmemo.scoring.submissions": ["SubmissionError", "SubmissionScore", "read_submission", "read_submission_dir",
                                    "score_predictions", "score_submission_dir", "write_submission"],
    "arcmemo.scoring.threads": ["DepthTable", "PuzzleThreads", "ThreadFinal", "depth_table", "puzzle_from_steps",
                                "step_verdicts", "submitted_attempts"],
})

__all__ = ["OFFICIAL_K", "TaskScore", "attempts_from_predictions", "oracle_at_k", "score_task", "strict_score",
           "SubmissionError", "SubmissionScore", "read_submission", "read_submission_dir", "score_predictions",
           "score_submission_dir", "write_submission", "CallUse", "Share", "attempt_metadata",
           "KaggleExport", "read_kaggle", "write_kaggle", "Rescored", "rescore",
           "DepthTable", "PuzzleThreads", "ThreadFinal", "depth_table", "puzzle_from_steps", "step_verdicts",
           "submitted_attempts", "ARC_PRIZE", "RunScore", "run_score"]
