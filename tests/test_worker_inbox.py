"""The builder reads each extraction worker's answers into an inbox of its own
(indexer/workers.py `_Inbox`): one read takes every answer the pipe holds, however they are
cut by the pipe, and an answer larger than the inbox still comes whole."""

from __future__ import annotations

import socket
import threading

import pytest

from codeimpact.indexer.workers import READY, Read, _answer, _Inbox


def _answers_until(inbox: _Inbox, fd: int, count: int) -> list:
    got: list = []
    while len(got) < count:
        got += inbox.read(fd)
    return got


def test_answers_that_came_together_are_taken_by_one_read():
    builder, worker = socket.socketpair()
    with builder, worker:
        _answer(worker, *READY)
        _answer(worker, "done", 0, b"facts of a")
        _answer(worker, "done", 7, (b"facts of b", Read(10, "h", 2, "python")))
        _answer(worker, "skipped", 3, "binary: not text")
        inbox = _Inbox()
        assert inbox.read(builder.fileno()) == [
            READY,
            ("done", 0, b"facts of a"),
            ("done", 7, (b"facts of b", Read(10, "h", 2, "python"))),
            ("skipped", 3, "binary: not text"),
        ]


def test_an_answer_larger_than_the_inbox_comes_whole_between_others():
    builder, worker = socket.socketpair()
    big = bytes(range(256)) * (3 << 12)  # 3 MB: more than the inbox and the socket hold
    with builder, worker:
        writer = threading.Thread(target=lambda: [_answer(worker, "done", i, blob) for i, blob in
                                                  enumerate((b"small", big, b"after"))])  # fmt: skip
        writer.start()
        got = _answers_until(_Inbox(), builder.fileno(), 3)
        writer.join()
    assert got == [("done", 0, b"small"), ("done", 1, big), ("done", 2, b"after")]


def test_an_answer_cut_by_the_pipe_is_taken_once_its_rest_comes():
    builder, worker = socket.socketpair()
    with builder, worker:
        _answer(worker, "done", 5, b"x" * 1000)
        scratch_r, scratch_w = socket.socketpair()
        with scratch_r, scratch_w:  # the same frames, written in two pieces
            _answer(scratch_w, "done", 6, b"y" * 1000)
            frame = scratch_r.recv(1 << 16)
        worker.sendall(frame[:700])
        inbox = _Inbox()
        assert inbox.read(builder.fileno()) == [("done", 5, b"x" * 1000)]
        worker.sendall(frame[700:])
        assert inbox.read(builder.fileno()) == [("done", 6, b"y" * 1000)]


def test_a_worker_that_ended_is_an_end_after_its_last_whole_answer():
    builder, worker = socket.socketpair()
    with builder:
        _answer(worker, "done", 1, b"last")
        worker.sendall(b"\0\0\1\0")  # the size of an answer never sent
        worker.close()
        inbox = _Inbox()
        assert inbox.read(builder.fileno()) == [("done", 1, b"last")]
        with pytest.raises(EOFError):
            inbox.read(builder.fileno())
