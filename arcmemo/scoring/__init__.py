"""Scoring: oracle@k and the strict score (scores.py), submission files (submissions.py).

The only package that reads test outputs besides the run loop that hands them over.
"""

from arcmemo.scoring.scores import (
                                    OFFICIAL_K,
                                    TaskScore,
                                    attempts_from_predictions,
                                    oracle_at_k,
                                    score_task,
                                    strict_score,
)
from arcmemo.scoring.submissions import SubmissionScore, read_submission, score_submission_dir, write_submission

__all__ = ["OFFICIAL_K", "TaskScore", "attempts_from_predictions", "oracle_at_k", "score_task", "strict_score",
           "SubmissionScore", "read_submission", "score_submission_dir", "write_submission"]
