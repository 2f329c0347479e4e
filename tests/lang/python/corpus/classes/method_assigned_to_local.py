# about: a bound method copied to a local name (from self, and from an instance), then called
# path: main.py
class Job:
    def run(self):
        step = self.step
        return step()
        #      ^ calls: main.Job.step

    def step(self):
        return 1


job = Job()
#     ^ calls: main.Job
go = job.run
go()
#^ calls: main.Job.run
