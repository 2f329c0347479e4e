# about: a function passed by keyword to a constructor, stored on self and called by a method
# path: main.py
def target():
    pass


class Task:
    def __init__(self, action=None):
        self.action = action

    def run(self):
        return self.action()
        #           ^ calls: main.target


Task(action=target).run()
#^ calls: main.Task
#^ calls: main.Task.__init__
#                   ^ calls: main.Task.run
