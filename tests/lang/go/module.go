// Go: a multi-package module (go.mod), package scope across files, imports, receivers, embedding, interfaces.
// (was test_lang_go.py: test_package_scope_spans_the_files_of_a_package,
// test_imports_aliased_dot_blank_and_external,
// test_calls_through_imports_builtins_and_conversions,
// test_unknown_receivers_guess_only_when_nothing_says_external,
// test_receivers_with_evident_types, test_results_and_elements_type_receivers,
// test_embedding_is_extends, test_interface_calls_fan_out_to_structural_implementations)
//
// test_package_scope_spans_the_files_of_a_package:
//   a package-level initializer runs in the module
//   an internal test file is part of its package
//
// test_imports_aliased_dot_blank_and_external:
//   the files that define what main.go uses of the package (`store.Cache` is in cache.go)
//   aliased (u.Func) and blank (its init) imports of util
//
// test_calls_through_imports_builtins_and_conversions:
//   `store.Count(3)` converts: no call, a reference to the type; `len` is a builtin
//   `mystery()` is defined nowhere: counted, not guessed; `.Get` on its result neither
//
// test_unknown_receivers_guess_only_when_nothing_says_external:
//   IsNil is defined once in the repository (Cache.IsNil); a reflect.Value is not ours, so
//   reflect.ValueOf(v).Elem().IsNil() stays unresolved, while nowhere().IsNil() may be it
//
// test_receivers_with_evident_types:
//   the method's receiver
//   promoted from the embedded Base
//   a field's declared type
//   x := store.NewStore() (declared result *Store), var c store.Cache
//   a package variable typed by its initializer, and a type assertion
//
// test_results_and_elements_type_receivers:
//   `s, err := store.Open()`: s is the first result, err the builtin error; elements of a
//   slice-typed result (`type Stores []*Store`) through range and indexing
//
// test_interface_calls_fan_out_to_structural_implementations:
//   name-based method sets; ReadGetter embeds io.Reader, whose methods we cannot see
//
// test_definitions_kinds_qualified_names_and_containment (every definition and CONTAINS
// edge is asserted, `exact: defines, in`):
//   struct fields are variables of their struct; `type Count int` is a type alias
//   a method declared in another file than its type is `Type.Method` there, and the module
//   of its own file holds it (store/lookup.go's Store.lookup is `in:` store/lookup.go::)
//
// expect: calls.builtin = 3
// expect: calls.unresolved = 5
// expect: calls.total = 39
// exact: calls, imports, references, extends, implements, defines, in
// path: app/main.go
package main
// ^ defines: example.com/app/app module 1-135

import (
    "os"
  // ^ imports: <external>::os
    "reflect"
  // ^ imports: <external>::reflect

    "example.com/app/store"
 // ^ imports: store/cache.go::
 // ^ imports: store/lookup.go::
 // ^ imports: store/store.go::
    u "example.com/app/util"
 // ^ imports: util/util.go::
    _ "example.com/app/util"
)

type App struct {
  // ^ defines: example.com/app/app.App struct 19-30
  // ^ in: example.com/app/app
    st *store.Store
     // ^ references: example.com/app/store.Store (import)
 // ^ defines: example.com/app/app.App.st variable 22-22
 // ^ in: example.com/app/app.App
    g  store.Getter
    // ^ references: example.com/app/store.Getter (import)
 // ^ defines: example.com/app/app.App.g variable 26-26
 // ^ in: example.com/app/app.App
}

func (a *App) Run(g store.Getter) {
                 // ^ references: example.com/app/store.Getter (import)
           // ^ defines: example.com/app/app.App.Run method 32-51
           // ^ in: example.com/app/app.App
    g.Get("b")
 // ^ calls: example.com/app/store.Cache.Get (dispatch)
 // ^ calls: example.com/app/store.Getter.Get (local-type)
 // ^ calls: example.com/app/store.Partial.Get (dispatch)
 // ^ calls: example.com/app/store.Store.Get (dispatch)
    u.Func()
 // ^ calls: example.com/app/util.Func (import)
    os.Exit(len("e"))
 // ^ calls: <external>::os.Exit (import)
    n := store.Count(3)
      // ^ references: example.com/app/store.Count (import)
    _ = n
    mystery().Get("i")
 // ^ unresolved: Get
 // ^ unresolved: mystery
}

func (a *App) Fields() {
           // ^ defines: example.com/app/app.App.Fields method 53-58
           // ^ in: example.com/app/app.App
    a.st.Get("a")
 // ^ calls: example.com/app/store.Store.Get (local-type)
}

func (a *App) Locals() {
           // ^ defines: example.com/app/app.App.Locals method 60-71
           // ^ in: example.com/app/app.App
    x := store.NewStore()
      // ^ calls: example.com/app/store.NewStore (import)
    x.Close()
 // ^ calls: example.com/app/store.Base.Close (local-type)
    var c store.Cache
       // ^ references: example.com/app/store.Cache (import)
    c.Get("d")
 // ^ calls: example.com/app/store.Cache.Get (local-type)
}

func (a *App) Literal() {
           // ^ defines: example.com/app/app.App.Literal method 73-80
           // ^ in: example.com/app/app.App
    y := &store.Store{}
       // ^ references: example.com/app/store.Store (import)
    y.Get("c")
 // ^ calls: example.com/app/store.Store.Get (local-type)
}

func (a *App) Global() {
           // ^ defines: example.com/app/app.App.Global method 82-88
           // ^ in: example.com/app/app.App
    store.Default.Get("f")
 // ^ calls: example.com/app/store.Store.Get (local-type)
 // ^ references: example.com/app/store.Default (import)
}

func (a *App) Assert(r interface{}) {
           // ^ defines: example.com/app/app.App.Assert method 90-96
           // ^ in: example.com/app/app.App
    r.(*store.Store).Get("g")
                  // ^ calls: example.com/app/store.Store.Get (local-type)
     // ^ references: example.com/app/store.Store (import)
}

func (a *App) Results() {
           // ^ defines: example.com/app/app.App.Results method 98-113
           // ^ in: example.com/app/app.App
    s, err := store.Open()
           // ^ calls: example.com/app/store.Open (import)
    s.Get("j")
 // ^ calls: example.com/app/store.Store.Get (local-type)
    _ = err.Error()
    for _, st := range store.All() {
                    // ^ calls: example.com/app/store.All (import)
        st.Get("k")
    }
    list := store.All()
    list[0].Close()
         // ^ calls: example.com/app/store.Base.Close (local-type)
}

func (a *App) Unknown(v interface{}) {
           // ^ defines: example.com/app/app.App.Unknown method 115-125
           // ^ in: example.com/app/app.App
    reflect.ValueOf(v).Elem().IsNil()
 // ^ calls: <external>::reflect.ValueOf (import)
                    // ^ unresolved: Elem
                    // ^ unresolved: IsNil
    nowhere().IsNil()
 // ^ calls: example.com/app/store.Cache.IsNil (unique-name)
 // ^ unresolved: nowhere
}

func main() {
  // ^ defines: example.com/app/app.main function 127-134
  // ^ in: example.com/app/app
    app := &App{}
         // ^ references: example.com/app/app.App (scope)
    app.Run(nil)
 // ^ calls: example.com/app/app.App.Run (local-type)
}
// path: dot/dot.go
package dot
// ^ defines: example.com/app/dot module 1-11

import . "example.com/app/util"
// ^ imports: util/util.go::

func Use() string { return Func() }
                        // ^ calls: example.com/app/util.Func (import)
  // ^ defines: example.com/app/dot.Use function 7-7
  // ^ in: example.com/app/dot
// path: go.mod
module example.com/app

go 1.22
// path: store/cache.go
package store
// ^ defines: store/cache.go:: module 1-38

type Cache struct{}
// ^ implements: example.com/app/store.Getter
  // ^ defines: example.com/app/store.Cache struct 4-4
  // ^ in: store/cache.go::

func (c Cache) Get(key string) int { return 0 }
            // ^ defines: example.com/app/store.Cache.Get method 9-9
            // ^ in: example.com/app/store.Cache

type Partial struct{}
// ^ implements: example.com/app/store.Getter
  // ^ defines: example.com/app/store.Partial struct 13-13
  // ^ in: store/cache.go::

func (p *Partial) Get(key string) int { return 1 }
               // ^ defines: example.com/app/store.Partial.Get method 18-18
               // ^ in: example.com/app/store.Partial

func (p *Partial) Read(b []byte) (int, error) { return 0, nil }
               // ^ defines: example.com/app/store.Partial.Read method 22-22
               // ^ in: example.com/app/store.Partial

// Odd has a Get, but not Getter's: arities differ
type Odd struct{}
  // ^ defines: example.com/app/store.Odd struct 27-27
  // ^ in: store/cache.go::

func (o Odd) Get() int { return 2 }
          // ^ defines: example.com/app/store.Odd.Get method 31-31
          // ^ in: example.com/app/store.Odd

func (c Cache) IsNil() bool { return false }
            // ^ defines: example.com/app/store.Cache.IsNil method 35-35
            // ^ in: example.com/app/store.Cache
// path: store/lookup.go
package store
// ^ defines: store/lookup.go:: module 1-49

type Logger struct{}
  // ^ defines: example.com/app/store.Logger struct 4-4
  // ^ in: store/lookup.go::

func (l *Logger) Printf(format string) {}
              // ^ defines: example.com/app/store.Logger.Printf method 8-8
              // ^ in: example.com/app/store.Logger

func (s *Store) lookup(key string) int {
             // ^ defines: example.com/app/store.Store.lookup method 12-17
             // ^ in: store/lookup.go::
    return s.items[key] + helper()
                       // ^ calls: example.com/app/store.helper (scope)
}

func helper() int { return Limit }
  // ^ defines: example.com/app/store.helper function 19-19
  // ^ in: store/lookup.go::

type Stores []*Store
            // ^ references: example.com/app/store.Store (scope)
  // ^ defines: example.com/app/store.Stores type_alias 23-23
  // ^ in: store/lookup.go::

func (ss Stores) Each() {
              // ^ defines: example.com/app/store.Stores.Each method 28-37
              // ^ in: example.com/app/store.Stores
    for _, s := range ss {
        s.Close()
     // ^ calls: example.com/app/store.Base.Close (local-type)
    }
    ss[0].lookup("z")
       // ^ calls: example.com/app/store.Store.lookup (local-type)
}

func Open() (*Store, error) { return NewStore(), nil }
                                  // ^ calls: example.com/app/store.NewStore (scope)
           // ^ references: example.com/app/store.Store (scope)
  // ^ defines: example.com/app/store.Open function 39-39
  // ^ in: store/lookup.go::

func All() Stores { return nil }
        // ^ references: example.com/app/store.Stores (scope)
  // ^ defines: example.com/app/store.All function 45-45
  // ^ in: store/lookup.go::
// path: store/store.go
package store
// ^ defines: store/store.go:: module 1-93

import "io"
     // ^ imports: <external>::io

// Base is embedded by Store.
type Base struct {
  // ^ defines: example.com/app/store.Base struct 8-14
  // ^ in: store/store.go::
    closed bool
 // ^ defines: example.com/app/store.Base.closed variable 11-11
 // ^ in: example.com/app/store.Base
}

func (b *Base) Close() error {
            // ^ defines: example.com/app/store.Base.Close method 16-21
            // ^ in: example.com/app/store.Base
    b.closed = true
    return nil
}

type Store struct {
// ^ extends: example.com/app/store.Base
// ^ implements: example.com/app/store.Getter
  // ^ defines: example.com/app/store.Store struct 23-37
  // ^ in: store/store.go::
    Base
 // ^ references: example.com/app/store.Base (scope)
    items map[string]int
 // ^ defines: example.com/app/store.Store.items variable 30-30
 // ^ in: example.com/app/store.Store
    log   *Logger
        // ^ references: example.com/app/store.Logger (scope)
 // ^ defines: example.com/app/store.Store.log variable 33-33
 // ^ in: example.com/app/store.Store
}

type Getter interface {
  // ^ defines: example.com/app/store.Getter interface 39-45
  // ^ in: store/store.go::
    Get(key string) int
 // ^ defines: example.com/app/store.Getter.Get method 42-42
 // ^ in: example.com/app/store.Getter
}

type ReadGetter interface {
// ^ extends: <external>::io.Reader
  // ^ defines: example.com/app/store.ReadGetter interface 47-55
  // ^ in: store/store.go::
    io.Reader
    Get(key string) int
 // ^ defines: example.com/app/store.ReadGetter.Get method 52-52
 // ^ in: example.com/app/store.ReadGetter
}

type ID = string
  // ^ defines: example.com/app/store.ID type_alias 57-57
  // ^ in: store/store.go::

type Count int
  // ^ defines: example.com/app/store.Count type_alias 61-61
  // ^ in: store/store.go::

var Default = NewStore()
           // ^ calls: example.com/app/store.NewStore (scope)
 // ^ defines: example.com/app/store.Default variable 65-65
 // ^ in: store/store.go::

const Limit, Other = 10, 20
   // ^ defines: example.com/app/store.Limit variable 70-70
   // ^ in: store/store.go::
          // ^ defines: example.com/app/store.Other variable 70-70
          // ^ in: store/store.go::

func NewStore() *Store {
              // ^ references: example.com/app/store.Store (scope)
  // ^ defines: example.com/app/store.NewStore function 76-81
  // ^ in: store/store.go::
    return &Store{items: map[string]int{}}
}

func (s *Store) Get(key string) int {
             // ^ defines: example.com/app/store.Store.Get method 83-92
             // ^ in: example.com/app/store.Store
    s.log.Printf("get")
 // ^ calls: example.com/app/store.Logger.Printf (local-type)
    s.Close()
 // ^ calls: example.com/app/store.Base.Close (inheritance)
    return s.lookup(key)
        // ^ calls: example.com/app/store.Store.lookup (self)
}
// path: util/util.go
package util
// ^ defines: util/util.go:: module 1-15

import "fmt"
     // ^ imports: <external>::fmt

func Func() string { return fmt.Sprint(1) }
                         // ^ calls: <external>::fmt.Sprint (import)
  // ^ defines: example.com/app/util.Func function 7-7
  // ^ in: util/util.go::

func init() {}
  // ^ defines: example.com/app/util.init function 12-12
  // ^ in: util/util.go::
// path: util/util_test.go
package util
// ^ defines: util/util_test.go:: module 1-20

import "testing"
     // ^ imports: <external>::testing

func TestFunc(t *testing.T) {
  // ^ defines: example.com/app/util.TestFunc function 7-15
  // ^ in: util/util_test.go::
    if Func() == "" {
    // ^ calls: example.com/app/util.Func (scope)
        t.Fatal("empty")
     // ^ calls: <external>::testing.T.Fatal (local-type)
    }
}

func helperForTests() {}
  // ^ defines: example.com/app/util.helperForTests function 17-17
  // ^ in: util/util_test.go::
