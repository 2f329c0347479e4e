# about: functools.cached_property calls the function on the first read only (still a call)
# path: app.py
import functools


def expensive():
    return 42


class Report:
    @functools.cached_property
    #          ^ calls: functools.cached_property
    def total(self):
        return expensive()
        #      ^ calls: app.expensive


def run():
    r = Report()
    #   ^ calls: app.Report
    return r.total + r.total
    #        ^ calls: app.Report.total
    #                  ^ calls: app.Report.total


run()
#^ calls: app.run
