# about: self.m() in a base method runs the override of the instance's class
# path: app.py
class Report:
    def render(self):
        return self.header() + "body"
        #           ^ calls: app.Report.header
        #           ^ calls: app.HtmlReport.header

    def header(self):
        return "plain "


class HtmlReport(Report):
    def header(self):
        return "<h1> "


Report().render()
#^ calls: app.Report
#        ^ calls: app.Report.render
HtmlReport().render()
#^ calls: app.HtmlReport
#            ^ calls: app.Report.render
