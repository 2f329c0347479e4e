# about: a closure made in one function is passed on and called by another
# path: app.py
def make_logger(prefix):
    def log(msg):
        return prefix + msg

    return log


def process(items, log):
    return [log(i) for i in items]
    #       ^ calls: app.make_logger.log


def main():
    log = make_logger("> ")
    #     ^ calls: app.make_logger
    return process(["a"], log)
    #      ^ calls: app.process


main()
#^ calls: app.main
