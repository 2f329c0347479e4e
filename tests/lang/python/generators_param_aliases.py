# Generators and parameter aliases (issue 25).
# A generator function's call, iterated, gives what it yields (a yielded call: its result);
# so does a loop over an instance whose __iter__ is a generator. A local bound to a
# parameter and called is a call of what the parameter was passed (value-flow, owned by the
# site that passes it, as for the parameter called by name).
# exact: calls
# path: m.py
class Task:
    def run(self):
        pass

class Other:
    def run(self):
        pass

def tasks():
    yield Task()
        # ^ calls: m.Task (scope)

class Job:
    def go(self):
        pass

class Batch:
    def __iter__(self):
        yield Job()
            # ^ calls: m.Job (scope)

def first():
    pass

def handlers():
    yield first

def main():
    for t in tasks():
           # ^ calls: m.tasks (scope)
        t.run()
        # ^ calls: m.Task.run (local-type)
    for j in Batch():
           # ^ calls: m.Batch (scope)
           # ^ calls: m.Batch.__iter__ (local-type)
        j.go()
        # ^ calls: m.Job.go (local-type)
    for h in handlers():
           # ^ calls: m.handlers (scope)
        h()
      # ^ calls: m.first (local-type)

def call_alias(cb):
    alias = cb
    alias()

def target():
    pass

call_alias(target)
# ^ calls: m.call_alias (scope)
         # ^ calls: m.target (value-flow)
