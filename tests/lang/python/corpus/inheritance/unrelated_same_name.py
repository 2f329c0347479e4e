# about: two unrelated classes with a method of the same name: a typed receiver calls one only
# path: app.py
class File:
    def close(self):
        return "file"


class Socket:
    def close(self):
        return "socket"


def shutdown(f: File):
    return f.close()
    #        ^ calls: app.File.close


shutdown(File())
#^ calls: app.shutdown
#        ^ calls: app.File
