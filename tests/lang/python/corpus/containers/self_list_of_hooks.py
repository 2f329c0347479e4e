# about: an instance's list of hooks, filled in __init__ and by append, called in a loop
# path: app.py
def log_start():
    return "start"


def log_end():
    return "end"


class Runner:
    def __init__(self):
        self.hooks = [log_start]
        self.hooks.append(log_end)

    def run(self):
        return [hook() for hook in self.hooks]
        #       ^ calls: app.log_start
        #       ^ calls: app.log_end


Runner().run()
#^ calls: app.Runner
#^ calls: app.Runner.__init__
#        ^ calls: app.Runner.run
