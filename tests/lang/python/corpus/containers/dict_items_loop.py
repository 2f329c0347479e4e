# about: a loop over dict.items() calls each stored function
# path: app.py
def check_name(v):
    return bool(v)


def check_age(v):
    return v > 0


CHECKS = {"name": check_name, "age": check_age}


def validate(record):
    for key, check in CHECKS.items():
        if not check(record[key]):
        #      ^ calls: app.check_name
        #      ^ calls: app.check_age
            return key
    return None


validate({"name": "a", "age": 3})
#^ calls: app.validate
