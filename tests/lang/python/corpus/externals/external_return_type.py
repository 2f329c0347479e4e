# about: the return of an external factory types the receiver (logging.getLogger -> Logger)
# externals: scored
# path: app.py
import logging


def warn(msg):
    log = logging.getLogger("app")
    #             ^ calls: logging.getLogger
    log.debug(msg)
    #   ^ calls: logging.Logger.debug
    return msg


warn("careful")
#^ calls: app.warn
