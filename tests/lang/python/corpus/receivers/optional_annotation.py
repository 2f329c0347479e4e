# about: an Optional[A] annotation types the receiver after the None check
# path: app.py
from typing import Optional


class Logger:
    def info(self, msg):
        return msg


def log(logger: Optional[Logger], msg):
    if logger is not None:
        return logger.info(msg)
        #             ^ calls: app.Logger.info
    return None


log(Logger(), "hi")
#^ calls: app.log
#   ^ calls: app.Logger
log(None, "x")
#^ calls: app.log
