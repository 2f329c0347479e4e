# about: a method calls another method of the same class through self
# path: main.py
class Job:
    def run(self):
        return self.step()
        #           ^ calls: main.Job.step

    def step(self):
        return 1


Job().run()
#     ^ calls: main.Job.run
#^ calls: main.Job
