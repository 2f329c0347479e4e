# about: concurrent.futures: submit(f, x) runs f in a worker; asserted as a call from the
# about: submitting scope (static)
# path: app.py
from concurrent.futures import ThreadPoolExecutor


def job(x):
    return x + 1


def run():
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(job, 1)
        #                    ^ calls: app.job [static]
        return future.result()


run()
#^ calls: app.run
