"""Hand-written ground truth of Flask 3.1.2 call edges, written by reading the source.

Run it to regenerate flask-3.1.2-calls.json (the file the tests read). Each c(caller,
*callees) line was written from the source of the caller, following the rules below.
"""

import json
from pathlib import Path

P = "src/flask/"
CTX, HLP, BP, VW = P + "ctx.py::", P + "helpers.py::", P + "blueprints.py::", P + "views.py::"
SC, SBP, SAPP, APP = (
    P + "sansio/scaffold.py::",
    P + "sansio/blueprints.py::",
    P + "sansio/app.py::",
    P + "app.py::",
)
CFG, TPL, SES = P + "config.py::", P + "templating.py::", P + "sessions.py::"
TAG, PRV, JS = P + "json/tag.py::", P + "json/provider.py::", P + "json/__init__.py::"
CLI, TST, WRP, DBG, LOG = (
    P + "cli.py::",
    P + "testing.py::",
    P + "wrappers.py::",
    P + "debughelpers.py::",
    P + "logging.py::",
)

SETUP = SC + "setupmethod"
F = APP + "Flask."
A = SAPP + "App."
S = SC + "Scaffold."
B = SBP + "Blueprint."
ENSURE = F + "ensure_sync"

calls = {}


def c(caller, *callees):
    assert caller not in calls, caller
    calls[caller] = sorted(set(callees))


# ---------------------------------------------------------------- ctx.py
c(CTX)
for m in (
    "__getattr__",
    "__setattr__",
    "__delattr__",
    "get",
    "pop",
    "setdefault",
    "__contains__",
    "__iter__",
    "__repr__",
):
    c(CTX + "_AppCtxGlobals." + m)
c(CTX + "_AppCtxGlobals")
c(CTX + "after_this_request")
c(CTX + "copy_current_request_context", CTX + "RequestContext.copy")
c(CTX + "copy_current_request_context.wrapper", ENSURE)
c(CTX + "has_request_context")
c(CTX + "has_app_context")
c(CTX + "AppContext")
c(CTX + "AppContext.__init__", F + "create_url_adapter", CTX + "_AppCtxGlobals")
c(CTX + "AppContext.push")
c(CTX + "AppContext.pop", F + "do_teardown_appcontext")
c(CTX + "AppContext.__enter__", CTX + "AppContext.push")
c(CTX + "AppContext.__exit__", CTX + "AppContext.pop")
c(CTX + "RequestContext")
c(CTX + "RequestContext.__init__", WRP + "Request", F + "create_url_adapter")
c(CTX + "RequestContext.copy", CTX + "RequestContext", CTX + "RequestContext.__init__")
c(CTX + "RequestContext.match_request")
c(
    CTX + "RequestContext.push",
    F + "app_context",
    CTX + "AppContext.push",
    SES + "SessionInterface.open_session",
    SES + "SecureCookieSessionInterface.open_session",
    SES + "SessionInterface.make_null_session",
    CTX + "RequestContext.match_request",
)
c(CTX + "RequestContext.pop", F + "do_teardown_request", CTX + "AppContext.pop")
c(CTX + "RequestContext.__enter__", CTX + "RequestContext.push")
c(CTX + "RequestContext.__exit__", CTX + "RequestContext.pop")
c(CTX + "RequestContext.__repr__")

# ---------------------------------------------------------------- helpers.py
c(HLP)
c(HLP + "get_debug_flag")
c(HLP + "get_load_dotenv")
c(HLP + "stream_with_context")
c(HLP + "stream_with_context#2")
c(HLP + "stream_with_context#3", HLP + "stream_with_context#3.generator")
c(HLP + "stream_with_context#3.decorator", HLP + "stream_with_context#3")
c(HLP + "stream_with_context#3.generator")
c(HLP + "make_response", WRP + "Response", F + "make_response")
c(HLP + "url_for", F + "url_for")
c(HLP + "redirect", A + "redirect")
c(HLP + "abort")
c(HLP + "get_template_attribute")
c(HLP + "flash", SES + "SecureCookieSession.get")
c(HLP + "get_flashed_messages")
c(HLP + "_prepare_send_file_kwargs")
c(HLP + "send_file", HLP + "_prepare_send_file_kwargs")
c(HLP + "send_from_directory", HLP + "_prepare_send_file_kwargs")
c(HLP + "get_root_path")
c(HLP + "_split_blueprint_path", HLP + "_split_blueprint_path")

# ---------------------------------------------------------------- blueprints.py
c(BP)
c(BP + "Blueprint")
c(BP + "Blueprint.__init__", SBP + "Blueprint.__init__", CLI + "AppGroup")
c(BP + "Blueprint.get_send_file_max_age")
c(
    BP + "Blueprint.send_static_file",
    BP + "Blueprint.get_send_file_max_age",
    HLP + "send_from_directory",
)
c(BP + "Blueprint.open_resource")

# ---------------------------------------------------------------- views.py
c(VW)
c(VW + "View")
c(VW + "View.dispatch_request")
c(VW + "View.as_view", VW + "View")
c(VW + "View.as_view.view", ENSURE)
c(VW + "View.as_view.view#2", ENSURE)
c(VW + "MethodView")
c(VW + "MethodView.__init_subclass__")
c(VW + "MethodView.dispatch_request", ENSURE)

# ---------------------------------------------------------------- sansio/scaffold.py
c(SC)
c(SC + "setupmethod")
c(
    SC + "setupmethod.wrapper_func",
    S + "_check_setup_finished",
    A + "_check_setup_finished",
    B + "_check_setup_finished",
)
c(SC + "Scaffold")
c(S + "__init__", HLP + "get_root_path")
c(S + "__repr__")
c(S + "_check_setup_finished")
c(S + "static_folder")
c(S + "static_folder#2")
c(S + "has_static_folder")
c(S + "static_url_path")
c(S + "static_url_path#2")
c(S + "jinja_loader")
c(S + "_method_route", S + "route")
for m in ("get", "post", "put", "delete", "patch"):
    c(S + m, SETUP, S + "_method_route")
c(S + "route", SETUP)
c(S + "route.decorator", S + "add_url_rule", A + "add_url_rule", B + "add_url_rule")
c(S + "add_url_rule", SETUP)
c(S + "endpoint", SETUP)
c(S + "endpoint.decorator")
for m in (
    "before_request",
    "after_request",
    "teardown_request",
    "context_processor",
    "url_value_preprocessor",
    "url_defaults",
):
    c(S + m, SETUP)
c(S + "errorhandler", SETUP)
c(S + "errorhandler.decorator", S + "register_error_handler")
c(S + "register_error_handler", SETUP, S + "_get_exc_class_and_code")
c(S + "_get_exc_class_and_code")
c(SC + "_endpoint_from_view_func")
c(SC + "_find_package_path")
c(SC + "find_package", SC + "_find_package_path")

# ---------------------------------------------------------------- sansio/blueprints.py
BSS = SBP + "BlueprintSetupState"
c(SBP)
c(BSS)
c(BSS + ".__init__")
c(BSS + ".add_url_rule", SC + "_endpoint_from_view_func", A + "add_url_rule")
c(SBP + "Blueprint")
c(B + "__init__", S + "__init__")
c(B + "_check_setup_finished")
c(B + "record", SETUP)
c(B + "record_once", SETUP, B + "record")
# value flow through the closure: wrapper calls the function record_once was given
c(
    B + "record_once.wrapper",
    B + "add_app_template_filter.register_template",
    B + "add_app_template_test.register_template",
    B + "add_app_template_global.register_template",
    B + "app_errorhandler.decorator.from_blueprint",
)
c(B + "make_setup_state", BSS, BSS + ".__init__")
c(B + "register_blueprint", SETUP)
c(
    B + "register",
    B + "make_setup_state",
    BSS + ".add_url_rule",
    B + "_merge_blueprint_funcs",
    B + "register",
)
c(B + "_merge_blueprint_funcs", B + "_merge_blueprint_funcs.extend")
c(B + "_merge_blueprint_funcs.extend")
c(B + "add_url_rule", SETUP, B + "record")
for kind in ("filter", "test", "global"):
    c(B + f"app_template_{kind}", SETUP)
    c(B + f"app_template_{kind}.decorator", B + f"add_app_template_{kind}")
    c(B + f"add_app_template_{kind}", SETUP, B + "record_once")
    c(B + f"add_app_template_{kind}.register_template")
for m in (
    "before_app_request",
    "after_app_request",
    "teardown_app_request",
    "app_context_processor",
    "app_url_value_preprocessor",
    "app_url_defaults",
):
    c(B + m, SETUP, B + "record_once")
c(B + "app_errorhandler", SETUP)
c(B + "app_errorhandler.decorator", B + "record_once")
c(B + "app_errorhandler.decorator.from_blueprint", S + "errorhandler", S + "errorhandler.decorator")

# ---------------------------------------------------------------- sansio/app.py
c(SAPP)
c(SAPP + "_make_timedelta")
c(SAPP + "App", CFG + "ConfigAttribute", CFG + "ConfigAttribute.__init__")
c(
    A + "__init__",
    S + "__init__",
    A + "auto_find_instance_path",
    A + "make_config",
    A + "make_aborter",
    PRV + "DefaultJSONProvider",
    PRV + "JSONProvider.__init__",
)
c(A + "_check_setup_finished")
c(A + "name")
c(A + "logger", LOG + "create_logger")
c(A + "jinja_env", A + "create_jinja_environment", F + "create_jinja_environment")
c(A + "create_jinja_environment")
c(A + "make_config", HLP + "get_debug_flag", CFG + "Config", CFG + "Config.__init__")
c(A + "make_aborter")
c(A + "auto_find_instance_path", SC + "find_package")
c(
    A + "create_global_jinja_loader",
    TPL + "DispatchingJinjaLoader",
    TPL + "DispatchingJinjaLoader.__init__",
)
c(A + "select_jinja_autoescape")
c(A + "debug")
c(A + "debug#2")
c(A + "register_blueprint", SETUP, B + "register")
c(A + "iter_blueprints")
c(A + "add_url_rule", SETUP, SC + "_endpoint_from_view_func")
for kind in ("filter", "test", "global"):
    c(A + f"template_{kind}", SETUP)
    c(A + f"template_{kind}.decorator", A + f"add_template_{kind}")
    c(A + f"add_template_{kind}", SETUP)
c(A + "teardown_appcontext", SETUP)
c(A + "shell_context_processor", SETUP)
c(A + "_find_error_handler", S + "_get_exc_class_and_code")
c(A + "trap_http_exception")
c(A + "should_ignore_error")
c(A + "redirect")
c(A + "inject_url_defaults", HLP + "_split_blueprint_path")
c(A + "handle_url_build_error")

# ---------------------------------------------------------------- app.py
c(APP)
c(APP + "_make_timedelta")
c(APP + "Flask", SES + "SecureCookieSessionInterface")
c(F + "__init__", A + "__init__", CLI + "AppGroup", A + "add_url_rule", F + "send_static_file")
c(F + "get_send_file_max_age")
c(F + "send_static_file", F + "get_send_file_max_age", HLP + "send_from_directory")
c(F + "open_resource")
c(F + "open_instance_resource")
c(F + "create_jinja_environment", TPL + "Environment", TPL + "Environment.__init__")
c(F + "create_url_adapter")
c(
    F + "raise_routing_exception",
    DBG + "FormDataRoutingRedirect",
    DBG + "FormDataRoutingRedirect.__init__",
)
c(F + "update_template_context", ENSURE)
c(F + "make_shell_context")
c(
    F + "run",
    HLP + "get_load_dotenv",
    CLI + "load_dotenv",
    HLP + "get_debug_flag",
    CLI + "show_server_banner",
)
c(F + "test_client", TST + "FlaskClient", TST + "FlaskClient.__init__")
c(F + "test_cli_runner", TST + "FlaskCliRunner", TST + "FlaskCliRunner.__init__")
c(F + "handle_http_exception", A + "_find_error_handler", ENSURE)
c(
    F + "handle_user_exception",
    A + "trap_http_exception",
    F + "handle_http_exception",
    A + "_find_error_handler",
    ENSURE,
)
c(
    F + "handle_exception",
    F + "log_exception",
    A + "_find_error_handler",
    ENSURE,
    F + "finalize_request",
)
c(F + "log_exception")
c(
    F + "dispatch_request",
    F + "raise_routing_exception",
    F + "make_default_options_response",
    ENSURE,
)
c(
    F + "full_dispatch_request",
    F + "preprocess_request",
    F + "dispatch_request",
    F + "handle_user_exception",
    F + "finalize_request",
)
c(F + "finalize_request", F + "make_response", F + "process_response")
c(F + "make_default_options_response", WRP + "Response")
c(F + "ensure_sync", F + "async_to_sync")
c(F + "async_to_sync")
c(F + "url_for", F + "create_url_adapter", A + "inject_url_defaults", A + "handle_url_build_error")
c(
    F + "make_response",
    WRP + "Response",
    PRV + "JSONProvider.response",
    PRV + "DefaultJSONProvider.response",
)
c(F + "preprocess_request", ENSURE)
c(
    F + "process_response",
    ENSURE,
    SES + "SessionInterface.is_null_session",
    SES + "SessionInterface.save_session",
    SES + "SecureCookieSessionInterface.save_session",
)
c(F + "do_teardown_request", ENSURE)
c(F + "do_teardown_appcontext", ENSURE)
c(F + "app_context", CTX + "AppContext", CTX + "AppContext.__init__")
c(F + "request_context", CTX + "RequestContext", CTX + "RequestContext.__init__")
c(
    F + "test_request_context",
    TST + "EnvironBuilder",
    TST + "EnvironBuilder.__init__",
    F + "request_context",
)
c(
    F + "wsgi_app",
    F + "request_context",
    CTX + "RequestContext.push",
    F + "full_dispatch_request",
    F + "handle_exception",
    A + "should_ignore_error",
    CTX + "RequestContext.pop",
)
c(F + "__call__", F + "wsgi_app")

# ---------------------------------------------------------------- config.py
c(CFG)
c(CFG + "ConfigAttribute")
c(CFG + "ConfigAttribute.__init__")
c(CFG + "ConfigAttribute.__get__")
c(CFG + "ConfigAttribute.__get__#2")
c(CFG + "ConfigAttribute.__get__#3")
c(CFG + "ConfigAttribute.__set__")
c(CFG + "Config")
c(CFG + "Config.__init__")
c(CFG + "Config.from_envvar", CFG + "Config.from_pyfile")
c(CFG + "Config.from_prefixed_env")
c(CFG + "Config.from_pyfile", CFG + "Config.from_object")
c(CFG + "Config.from_object")
c(CFG + "Config.from_file", CFG + "Config.from_mapping")
c(CFG + "Config.from_mapping")
c(CFG + "Config.get_namespace")
c(CFG + "Config.__repr__")

# ---------------------------------------------------------------- templating.py
DJL = TPL + "DispatchingJinjaLoader."
c(TPL)
c(TPL + "_default_template_ctx_processor")
c(TPL + "Environment")
c(TPL + "Environment.__init__", A + "create_global_jinja_loader")
c(TPL + "DispatchingJinjaLoader")
c(DJL + "__init__")
c(DJL + "get_source", DJL + "_get_source_explained", DJL + "_get_source_fast")
c(DJL + "_get_source_explained", DJL + "_iter_loaders", DBG + "explain_template_loading_attempts")
c(DJL + "_get_source_fast", DJL + "_iter_loaders")
c(DJL + "_iter_loaders", A + "iter_blueprints")
c(DJL + "list_templates", A + "iter_blueprints")
c(TPL + "_render", F + "update_template_context")
c(TPL + "render_template", TPL + "_render")
c(TPL + "render_template_string", TPL + "_render")
c(
    TPL + "_stream",
    F + "update_template_context",
    TPL + "_stream.generate",
    HLP + "stream_with_context#3",
)
c(TPL + "_stream.generate")
c(TPL + "stream_template", TPL + "_stream")
c(TPL + "stream_template_string", TPL + "_stream")

# ---------------------------------------------------------------- sessions.py
SI = SES + "SessionInterface."
SCSI = SES + "SecureCookieSessionInterface."
c(SES, TAG + "TaggedJSONSerializer", TAG + "TaggedJSONSerializer.__init__")
c(SES + "SessionMixin")
c(SES + "SessionMixin.permanent", SES + "SecureCookieSession.get")
c(SES + "SessionMixin.permanent#2")
c(SES + "SecureCookieSession")
c(SES + "SecureCookieSession.__init__")
c(SES + "SecureCookieSession.__init__.on_update")
c(SES + "SecureCookieSession.__getitem__")
c(SES + "SecureCookieSession.get")
c(SES + "SecureCookieSession.setdefault")
c(SES + "NullSession")
c(SES + "NullSession._fail")
c(SES + "SessionInterface")
c(SI + "make_null_session", SES + "NullSession", SES + "SecureCookieSession.__init__")
for m in (
    "is_null_session",
    "get_cookie_name",
    "get_cookie_domain",
    "get_cookie_path",
    "get_cookie_httponly",
    "get_cookie_secure",
    "get_cookie_samesite",
    "get_cookie_partitioned",
    "get_expiration_time",
    "should_set_cookie",
    "open_session",
    "save_session",
):
    c(SI + m)
c(SES + "_lazy_sha1")
c(SES + "SecureCookieSessionInterface")
c(SCSI + "get_signing_serializer")
c(
    SCSI + "open_session",
    SCSI + "get_signing_serializer",
    SI + "get_cookie_name",
    SES + "SecureCookieSession",
    SES + "SecureCookieSession.__init__",
)
c(
    SCSI + "save_session",
    *(
        SI + "get_cookie_" + x
        for x in ("name", "domain", "path", "secure", "partitioned", "samesite", "httponly")
    ),
    SI + "should_set_cookie",
    SI + "get_expiration_time",
    SCSI + "get_signing_serializer",
)

# ---------------------------------------------------------------- json/tag.py
TAGS = (
    "TagDict",
    "PassDict",
    "TagTuple",
    "PassList",
    "TagBytes",
    "TagMarkup",
    "TagUUID",
    "TagDateTime",
)
TO_PYTHON = ("TagDict", "TagTuple", "TagBytes", "TagMarkup", "TagUUID", "TagDateTime")
TJS = TAG + "TaggedJSONSerializer."
c(TAG)
c(TAG + "JSONTag")
c(TAG + "JSONTag.__init__")
c(TAG + "JSONTag.check")
c(TAG + "JSONTag.to_json")
c(TAG + "JSONTag.to_python")
c(TAG + "JSONTag.tag", TAG + "JSONTag.to_json", *(TAG + k + ".to_json" for k in TAGS))
for k in TAGS:
    c(TAG + k)
    c(TAG + k + ".check")
    if k in ("TagDict", "PassDict", "TagTuple", "PassList"):
        c(TAG + k + ".to_json", TJS + "tag")
    else:
        c(TAG + k + ".to_json")
    if k in TO_PYTHON:
        c(TAG + k + ".to_python")
c(TAG + "TaggedJSONSerializer")
c(TJS + "__init__", TJS + "register")
c(TJS + "register", TAG + "JSONTag", TAG + "JSONTag.__init__")
c(TJS + "tag", TAG + "JSONTag.check", *(TAG + k + ".check" for k in TAGS), TAG + "JSONTag.tag")
c(TJS + "untag", TAG + "JSONTag.to_python", *(TAG + k + ".to_python" for k in TO_PYTHON))
c(TJS + "_untag_scan", TJS + "_untag_scan", TJS + "untag")
c(TJS + "dumps", JS + "dumps", TJS + "tag")
c(TJS + "loads", TJS + "_untag_scan", JS + "loads")

# ---------------------------------------------------------------- json/provider.py
JP, DJP = PRV + "JSONProvider.", PRV + "DefaultJSONProvider."
c(PRV)
c(PRV + "JSONProvider")
c(JP + "__init__")
c(JP + "dumps")
c(JP + "dump", JP + "dumps", DJP + "dumps")
c(JP + "loads")
c(JP + "load", JP + "loads", DJP + "loads")
c(JP + "_prepare_response_obj")
c(JP + "response", JP + "_prepare_response_obj", JP + "dumps", DJP + "dumps")
c(PRV + "_default")
c(PRV + "DefaultJSONProvider")
c(DJP + "dumps")
c(DJP + "loads")
c(DJP + "response", JP + "_prepare_response_obj", DJP + "dumps")

# ---------------------------------------------------------------- json/__init__.py
c(JS)
c(JS + "dumps", JP + "dumps", DJP + "dumps")
c(JS + "dump", JP + "dump")
c(JS + "loads", JP + "loads", DJP + "loads")
c(JS + "load", JP + "load")
c(JS + "jsonify", JP + "response", DJP + "response")

# ---------------------------------------------------------------- cli.py
SI_ = CLI + "ScriptInfo"
FG = CLI + "FlaskGroup"
c(CLI, FG, FG + ".__init__", CLI + "main")
c(CLI + "NoAppException")
c(CLI + "find_best_app", CLI + "NoAppException", CLI + "_called_with_wrong_args")
c(CLI + "_called_with_wrong_args")
c(CLI + "find_app_by_string", CLI + "NoAppException", CLI + "_called_with_wrong_args")
c(CLI + "prepare_import")
c(CLI + "locate_app")
c(CLI + "locate_app#2")
c(CLI + "locate_app#3", CLI + "NoAppException", CLI + "find_best_app", CLI + "find_app_by_string")
c(CLI + "get_version")
c(SI_)
c(SI_ + ".__init__", HLP + "get_load_dotenv")
c(
    SI_ + ".load_app",
    CLI + "prepare_import",
    CLI + "locate_app#3",
    CLI + "NoAppException",
    HLP + "get_debug_flag",
)
c(CLI + "with_appcontext")
# ctx.ensure_object(ScriptInfo) returns the ScriptInfo (click's contract)
c(CLI + "with_appcontext.decorator", SI_ + ".load_app", F + "app_context")
c(CLI + "AppGroup")
c(CLI + "AppGroup.command")
c(CLI + "AppGroup.command.decorator", CLI + "with_appcontext")
c(CLI + "AppGroup.group")
c(CLI + "_set_app")
c(CLI + "_set_debug")
c(CLI + "_env_file_callback", CLI + "load_dotenv")
c(FG)
c(FG + ".__init__")
c(FG + "._load_plugin_commands")
c(FG + ".get_command", FG + "._load_plugin_commands", SI_ + ".load_app", F + "app_context")
c(FG + ".list_commands", FG + "._load_plugin_commands", SI_ + ".load_app")
c(FG + ".make_context", SI_, SI_ + ".__init__")
c(FG + ".parse_args")
c(CLI + "_path_is_ancestor")
c(CLI + "load_dotenv")
c(CLI + "show_server_banner")
c(CLI + "CertParamType")
c(CLI + "CertParamType.__init__")
c(CLI + "CertParamType.convert")
c(CLI + "_validate_key")
c(CLI + "SeparatedPathType")
c(CLI + "SeparatedPathType.convert")
# calls in the decorators' arguments (type=CertParamType()) count for the decorated function
c(
    CLI + "run_command",
    CLI + "CertParamType",
    CLI + "CertParamType.__init__",
    CLI + "SeparatedPathType",
    SI_ + ".load_app",
    HLP + "get_debug_flag",
    CLI + "show_server_banner",
)
c(CLI + "run_command.app")
c(CLI + "shell_command", CLI + "with_appcontext", F + "make_shell_context")
c(CLI + "routes_command", CLI + "with_appcontext")
c(CLI + "main")


# ---------------------------------------------------------------- decorators (issue 25)
# The c(...) lines above count a decorator and the calls in its arguments for the decorated
# definition. DESIGN defines them as what they are, `@d def f` is f = d(f): d (and what its
# arguments call) is called from the scope around f; a call of f runs what d returned
# (setupmethod returns update_wrapper(wrapper_func, f), so wrapper_func), and wrapper_func
# calls f. The definitions written with a repository decorator, read from the source:
DECORATED = {
    SETUP: [
        S + m
        for m in (
            "get post put delete patch route add_url_rule endpoint before_request after_request "
            "teardown_request context_processor url_value_preprocessor url_defaults errorhandler "
            "register_error_handler"
        ).split()
    ]
    + [
        A + m
        for m in (
            "register_blueprint add_url_rule template_filter add_template_filter template_test "
            "add_template_test template_global add_template_global teardown_appcontext "
            "shell_context_processor"
        ).split()
    ]
    + [
        B + m
        for m in (
            "record record_once register_blueprint add_url_rule app_template_filter "
            "add_app_template_filter app_template_test add_app_template_test app_template_global "
            "add_app_template_global before_app_request after_app_request teardown_app_request "
            "app_context_processor app_errorhandler app_url_value_preprocessor app_url_defaults"
        ).split()
    ],
    # with_appcontext hands f to click's ctx.invoke: its wrapper calls no function of ours
    CLI + "with_appcontext": [CLI + "shell_command", CLI + "routes_command"],
}
# calls made by the arguments of run_command's @click.option decorators (type=CertParamType())
DECORATOR_ARGUMENTS = {
    CLI + "run_command": [
        CLI + "CertParamType",
        CLI + "CertParamType.__init__",
        CLI + "SeparatedPathType",
    ],
}
WRAPPER = {SETUP: SC + "setupmethod.wrapper_func"}  # what each decorator returns


def _decorators_as_calls() -> None:
    runs = {f: WRAPPER[d] for d, fs in DECORATED.items() if d in WRAPPER for f in fs}
    moved: dict[str, set[str]] = {}
    for d, fs in DECORATED.items():
        for f in fs:
            assert d in calls[f], (f, d)
            moved.setdefault(
                f.rpartition(".")[0] if "." in f.split("::")[1] else f.split("::")[0] + "::", set()
            ).add(d)
            calls[f] = [x for x in calls[f] if x != d]
    for f, made in DECORATOR_ARGUMENTS.items():
        assert set(made) <= set(calls[f]), f
        calls[f] = [x for x in calls[f] if x not in made]
        moved.setdefault(f.split("::")[0] + "::", set()).update(made)
    for scope, names in moved.items():
        calls[scope] = sorted({*calls[scope], *names})
    for caller, callees in calls.items():
        calls[caller] = sorted({runs.get(x, x) for x in callees})
    for f, wrapper in runs.items():  # the wrapper calls the function it wraps
        calls[wrapper] = sorted({*calls[wrapper], f})


_decorators_as_calls()

# ---------------------------------------------------------------- property reads (issue 25)
# Reading a property (or a cached_property) runs its getter: a call from where it is read.
# Read from the source: each attribute below is a @property / @cached_property of that class,
# read on a receiver of that class (self, `request`: Request, `current_app`/`self.app`: Flask).
PROPERTY_READS = {
    F + "create_jinja_environment": [A + "debug"],
    F + "do_teardown_request": [WRP + "Request.blueprints"],
    F + "finalize_request": [A + "logger"],
    F + "handle_exception": [WRP + "Request.blueprints"],
    F + "handle_http_exception": [WRP + "Request.blueprints"],
    F + "handle_user_exception": [WRP + "Request.blueprints"],
    F + "log_exception": [A + "logger"],
    F + "preprocess_request": [WRP + "Request.blueprints", WRP + "Request.endpoint"],
    F + "process_response": [WRP + "Request.blueprints"],
    F + "run": [A + "debug", A + "name"],
    F + "send_static_file": [S + "static_folder"],
    F + "update_template_context": [WRP + "Request.blueprints"],
    BP + "Blueprint.send_static_file": [S + "static_folder"],
    HLP + "get_template_attribute": [A + "jinja_env"],
    S + "static_url_path": [S + "static_folder"],
    TPL + "DispatchingJinjaLoader._iter_loaders": [S + "jinja_loader"],
    TPL + "DispatchingJinjaLoader.list_templates": [S + "jinja_loader"],
}
# Reads inside other expressions (a condition, `or`, `not`, a comparison, an f-string, the
# base of a subscript assignment, the value assigned to another object's attribute) run the
# getter too; `Scaffold.__repr__` reads `self.name`, App's cached_property on an App.
EXPRESSION_READS = {
    F + "__init__": [A + "name", S + "has_static_folder", S + "static_url_path"],
    F + "handle_exception": [A + "debug"],
    F + "handle_user_exception": [A + "debug"],
    F + "make_response": [WRP + "Request.endpoint"],
    F + "raise_routing_exception": [A + "debug"],
    F + "send_static_file": [S + "has_static_folder"],
    BP + "Blueprint.send_static_file": [S + "has_static_folder"],
    CTX + "RequestContext.__repr__": [A + "name"],
    PRV + "DefaultJSONProvider.response": [A + "debug"],
    A + "add_template_filter": [A + "jinja_env"],
    A + "add_template_global": [A + "jinja_env"],
    A + "add_template_test": [A + "jinja_env"],
    A + "auto_find_instance_path": [A + "name"],
    A + "trap_http_exception": [A + "debug"],
    B + "add_app_template_filter.register_template": [A + "jinja_env"],
    B + "add_app_template_global.register_template": [A + "jinja_env"],
    B + "add_app_template_test.register_template": [A + "jinja_env"],
    B + "register": [S + "has_static_folder", S + "static_url_path"],
    S + "__repr__": [A + "name"],
    S + "has_static_folder": [S + "static_folder"],
    SES + "SessionInterface.get_expiration_time": [SES + "SessionMixin.permanent"],
    SES + "SessionInterface.should_set_cookie": [SES + "SessionMixin.permanent"],
}
# The receiver chain of an attribute assignment is read before the assignment
# (`self.jinja_env.auto_reload = value` in the debug setter), and werkzeug's LocalProxy
# `_get_current_object()` hands back the object the proxy stands for, as its annotation types
# it (`current_app: Flask`): `app = current_app._get_current_object(); app.jinja_env...`.
TARGET_AND_PROXY_READS = {
    A + "debug#2": [A + "jinja_env"],
    TPL + "render_template": [A + "jinja_env"],
    TPL + "render_template_string": [A + "jinja_env"],
    TPL + "stream_template": [A + "jinja_env"],
    TPL + "stream_template_string": [A + "jinja_env"],
}
for _caller, _getters in [*PROPERTY_READS.items(), *EXPRESSION_READS.items(),
                          *TARGET_AND_PROXY_READS.items()]:  # fmt: skip
    calls[_caller] = sorted({*calls[_caller], *_getters})

modules = sorted({k.split("::")[0] for k in calls})
doc = {
    "project": "flask",
    "version": "3.1.2",
    "source": "PyPI sdist: pip download --no-deps --no-binary :all: flask==3.1.2",
    "written_by": "reading the source by hand (not from codeimpact output)",
    "rules": [
        "callers: every module, class, function and method symbol of the listed modules "
        "(uid <path>::<dotted local name>, #2/#3 for redefinitions such as @overload stubs "
        "and property setters); a caller with no repository-internal callee is listed "
        "with []",
        "callees: functions, methods and classes under src/flask/ that the caller's explicit "
        "call expressions or decorators can run, as a careful reader determines them from "
        "the source: lexical scope, imports (TYPE_CHECKING imports included), annotations of "
        "parameters, variables and attributes, instance attributes set in __init__, class "
        "attributes holding classes, evident return values and closures",
        "a constructor call C() lists the class C and the __init__ that runs (first in C's "
        "MRO, only when defined under src/flask/)",
        "a method call on a receiver of static class C (self, cls, a declared type) lists "
        "the method found through C's MRO plus the overrides defined (with def) in "
        "subclasses of C under src/flask/; a receiver constructed as C() is exactly a C; "
        "aliases assigned in class bodies (tag = to_json) are not followed",
        "a decorator, and the calls in its arguments, are calls from the scope around the "
        "decorated definition (@d def f is f = d(f)); a call of f lists what d returned "
        "(setupmethod's wrapper_func), which calls f; lambdas and comprehensions belong to "
        "the enclosing definition (issue 25: until then decorators counted for the decorated "
        "definition)",
        "library contracts a reader knows are used where the source relies on them "
        "(click's ctx.ensure_object(ScriptInfo) returns the ScriptInfo)",
        "calls of values from containers (for func in funcs: func()), of parameters with "
        "no evident value, and of implicit protocol methods (__enter__, descriptors) are "
        "not listed; reading a property or cached_property is a call of its getter, wherever "
        "the read is in an expression (issue 25) or the receiver of an attribute assignment; "
        "werkzeug's LocalProxy._get_current_object() returns the object of the proxy's "
        "annotated type",
    ],
    "modules": modules,
    "calls": calls,
}
with open(Path(__file__).with_name("flask-3.1.2-calls.json"), "w") as fh:
    json.dump(doc, fh, indent=1, sort_keys=False)
    fh.write("\n")
print(len(calls), "callers", sum(len(v) for v in calls.values()), "edges")
