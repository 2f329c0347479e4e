"""The resolving processes' messages to the builder (indexer/sink_frames.py): a chunk's
outputs written from their own bytes and values marshalled, read back in order over one
real pipe, whatever its size against the pipe's; a writer that ends in a message ends the
reading with EOFError, as an ended pipe does."""

from __future__ import annotations

import multiprocessing as mp
import os
import threading

import pytest

from codeimpact.indexer.sink_frames import Frames, send_chunk, send_value, write_frame


def _outputs(seed: int, files: int, size: int) -> list[tuple[bytes, bytes]]:
    return [(bytes([(seed + i) % 251]) * (size + i), f"keys{i}\n\0x".encode() * (i % 3))
            for i in range(files)]  # fmt: skip


def test_chunks_and_values_come_back_in_order_over_a_real_pipe():
    r, w = mp.get_context("fork").Pipe(duplex=False)
    sent = [
        ("chunk", 0, _outputs(1, 24, 7000)),
        ("value", ("summaries", {"a.py": b"\x00\x01"})),
        ("chunk", 7, _outputs(2, 3, 300_000)),  # (several times what the pipe holds)
        ("chunk", 2, []),
        ("value", ("end", {"python": {"a.py": "a"}}, None)),
    ]

    def write():  # (beside the reader: a write bigger than the pipe waits for it)
        for kind, *what in sent:
            if kind == "chunk":
                send_chunk(w, *what)
            else:
                send_value(w, *what)
        w.close()

    writer = threading.Thread(target=write)
    writer.start()
    frames = Frames()
    got = []
    with pytest.raises(EOFError):
        while True:
            got.append(frames.read(r))
    writer.join()
    want = [tuple(what) if kind == "chunk" else what[0] for kind, *what in sent]
    assert got == want
    chunks = [m for m in got if isinstance(m[0], int)]
    assert all(type(b) is bytes and type(k) is bytes for _, outs in chunks for b, k in outs)


def test_a_writer_ended_in_a_message_ends_the_reading():
    r, w = mp.get_context("fork").Pipe(duplex=False)
    send_value(w, ("summaries", {}))
    # a chunk's size and its first bytes, then the writer dies
    os.write(w.fileno(), (1000).to_bytes(4, "big") + b"\0" + b"\1" * 100)
    w.close()
    frames = Frames()
    assert frames.read(r) == ("summaries", {})
    with pytest.raises(EOFError):
        frames.read(r)


def test_a_frame_of_parts_comes_back_whole_as_one_payload():
    """write_frame (the extraction workers' answers: indexer/workers.py) joins its parts in
    one frame written from their own bytes; Frames.payload gives it back, however big."""
    r, w = mp.get_context("fork").Pipe(duplex=False)
    parts = [b"\1" + (7).to_bytes(4, "little"), bytes(range(256)) * 2000, b"", b"tail"]
    writer = threading.Thread(target=lambda: (write_frame(w.fileno(), parts), w.close()))
    writer.start()
    frames = Frames()
    with frames.payload(r) as view:
        assert bytes(view) == b"".join(parts)
    with pytest.raises(EOFError):
        frames.payload(r)
    writer.join()
