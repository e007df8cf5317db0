"""The paper's Table 4 / Table 5 block from one run's threads, checked cell by cell by hand."""

from __future__ import annotations

import pytest

from arcmemo.scoring.threads import PuzzleThreads, ThreadFinal, depth_table, submitted_attempts

Y, N = True, False

# Two puzzles, 3 threads, 2 retries (depths 0, 1, 2). A thread stops once it passes train.
#
# P1, one test input:
#   thread 0: d0 wrong, d1 right (stops)
#   thread 1: wrong at d0, d1, d2
#   thread 2: d0 right (stops)
# P2, two test inputs a, b:
#   thread 0: d0 (a), d1 (b), d2 nothing   -> a and b by d1, but never one program for both
#   thread 1: nothing, nothing, d2 (a, b)  -> one program for both at d2
#   thread 2: (b) at d0, d1 and d2
P1 = PuzzleThreads("p1", 1, (((N,), (Y,)), ((N,), (N,), (N,)), ((Y,),)))
P2 = PuzzleThreads("p2", 2, (((Y, N), (N, Y), (N, N)), ((N, N), (N, N), (Y, Y)), ((N, Y), (N, Y), (N, Y))))

# Per test input, m = threads that solved it by depth d; a k-subset of 3 holds one of them
# with probability 1 - C(3-m, k)/C(3, k):  m=0: 0;  m=1: k1 1/3, k2 2/3, k3 1;  m=2: k1 2/3, k2 1, k3 1;  m=3: 1.
#
# oracle@k, per puzzle (P2 = mean of a and b):
#   d0: P1 m=1 -> 1/3, 2/3, 1.       P2 a m=1, b m=1 -> 1/3, 2/3, 1
#   d1: P1 m=2 -> 2/3, 1, 1.         P2 a m=1, b m=2 -> (1/3+2/3)/2=1/2, (2/3+1)/2=5/6, 1
#   d2: P1 m=2 -> 2/3, 1, 1.         P2 a m=2, b m=3 -> (2/3+1)/2=5/6, 1, 1
# run (mean of P1, P2, percent):
#   d0: 33.33, 66.67, 100     d1: (2/3+1/2)/2=58.33, (1+5/6)/2=91.67, 100     d2: (2/3+5/6)/2=75, 100, 100
ORACLE = [[100 / 3, 200 / 3, 100], [175 / 3, 275 / 3, 100], [75, 100, 100]]
#
# strict@k (one program solves every test input): P1 as its oracle (one test input);
#   P2: no single step solves a and b until thread 1 at d2 (m=1) -> d0, d1: 0;  d2: 1/3, 2/3, 1
#   d0: (1/3+0)/2=16.67, (2/3+0)/2=33.33, (1+0)/2=50
#   d1: (2/3+0)/2=33.33, (1+0)/2=50, 50
#   d2: (2/3+1/3)/2=50, (1+2/3)/2=83.33, (1+1)/2=100
STRICT = [[50 / 3, 100 / 3, 50], [100 / 3, 50, 50], [50, 250 / 3, 100]]
#
# Each thread alone (the paper's individual run scores), oracle:
#   d0: t0 P1 0, P2 1/2 -> 25;  t1 0 -> 0;  t2 P1 1, P2 1/2 -> 75          (mean 33.33 = oracle@1)
#   d1: t0 1, 1 -> 100;         t1 0;       t2 75                           (mean 58.33)
#   d2: t0 100;                 t1 P1 0, P2 1 -> 50;   t2 75               (mean 75)
PER_THREAD = [[25, 0, 75], [100, 0, 75], [100, 50, 75]]
# Spread at d0, k=1: 25, 0, 75 (mean 33.33): squares 69.44 + 1111.11 + 1736.11 = 2916.67, /2, sqrt -> 38.19
# k=2 subsets at d0: {0,1}: P1 0, P2 a -> 1/2 -> 25; {0,2}: 1, 1 -> 100; {1,2}: 1, b -> 1/2 -> 75 -> same spread.
STD_D0 = (2916.6666666 / 2) ** 0.5


def test_every_cell_of_the_hand_computed_example():
    table = depth_table([P1, P2], threads=3, retries=2)
    assert (table.threads, table.retries, table.puzzles) == (3, 2, 2)
    for d in range(3):
        for k in range(3):
            assert table.oracle[d][k] == pytest.approx(ORACLE[d][k]), (d, k + 1)
            assert table.strict[d][k] == pytest.approx(STRICT[d][k]), (d, k + 1)
        assert list(table.per_thread[d]) == pytest.approx(PER_THREAD[d]), d
        assert table.oracle[d][0] == pytest.approx(sum(PER_THREAD[d]) / 3)
        assert table.oracle_std[d][2] is None and table.strict_std[d][2] is None   # one 3-subset
    assert table.oracle_std[0][0] == pytest.approx(STD_D0) and table.oracle_std[0][1] == pytest.approx(STD_D0)
    # strict at d2, k=1: threads alone 100/2 (t0: P1 only), 50 (t1: P2 only), 50 (t2: P1) -> 50, 50, 50
    assert table.strict_std[2][0] == pytest.approx(0.0)


def test_more_depth_never_lowers_a_cell_and_more_threads_never_lower_a_row():
    table = depth_table([P1, P2], threads=3, retries=2)
    for grid in (table.oracle, table.strict):
        for d in range(3):
            assert list(grid[d]) == sorted(grid[d])
            if d:
                assert all(a >= b for a, b in zip(grid[d], grid[d - 1]))


def test_one_thread_no_retries_is_the_plain_score():
    table = depth_table([PuzzleThreads("p", 2, (((Y, N),),))], threads=1, retries=0)
    assert table.oracle == ((50.0,),) and table.strict == ((0.0,),) and table.oracle_std == ((None,),)


def test_malformed_input_is_refused_with_the_puzzle_named():
    with pytest.raises(ValueError, match="puzzle p1: 2 threads, expected 3"):
        depth_table([PuzzleThreads("p1", 1, (((Y,),), ((Y,),)))], threads=3, retries=2)
    with pytest.raises(ValueError, match="puzzle p1 thread 0: 4 steps, more than 3"):
        depth_table([PuzzleThreads("p1", 1, (((N,),) * 4,))], threads=1, retries=2)
    with pytest.raises(ValueError, match="puzzle p2 thread 0 step 0: 1 verdicts, expected 2"):
        depth_table([PuzzleThreads("p2", 2, (((Y,),),))], threads=1, retries=0)
    with pytest.raises(ValueError, match="no puzzles"):
        depth_table([], threads=1, retries=0)


A, B, C = ((1,),), ((2,),), ((3,),)


def test_submitted_attempts_follow_the_documented_rule():
    finals = [
        ThreadFinal(2, passed_train=False, train_cell_accuracy=0.9, test_outputs=(C, A)),
        ThreadFinal(0, passed_train=True, train_cell_accuracy=1.0, test_outputs=(A, None)),
        ThreadFinal(1, passed_train=True, train_cell_accuracy=1.0, test_outputs=(B, B)),
    ]
    # test 0: threads 0 and 1 rank equal (passed, 1.0; thread 1 complete ranks it first), C last
    # test 1: thread 1's B first (passed, complete), then thread 2's A; thread 0 has no output
    assert submitted_attempts(finals, 2) == [[B, A], [B, A]]
    # a grid more equal-ranked threads agree on goes first
    agree = [ThreadFinal(0, True, 1.0, (A,)), ThreadFinal(1, True, 1.0, (B,)), ThreadFinal(2, True, 1.0, (B,))]
    assert submitted_attempts(agree, 1) == [[B, A]]
    assert submitted_attempts([ThreadFinal(0, False, 0.0, (None,))], 1) == [[]]
