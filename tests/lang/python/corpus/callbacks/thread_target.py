# about: threading.Thread(target=f): the thread calls f; asserted as a call from where the
# about: thread is made (static: the trace sees f entered from threading, no project caller)
# path: app.py
import threading

RESULTS = []


def worker(n):
    RESULTS.append(square(n))
    #              ^ calls: app.square


def square(n):
    return n * n


def run():
    t = threading.Thread(target=worker, args=(3,))
    #                           ^ calls: app.worker [static]
    t.start()
    t.join()
    return RESULTS


run()
#^ calls: app.run
