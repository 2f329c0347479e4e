// Java: a multi-package Maven layout: heritage, imports, calls on typed receivers, constructors, dispatch, overloads.
// (was test_lang_java.py: test_heritage, test_imports_single_on_demand_static_and_external,
// test_same_package_types_need_no_import,
// test_calls_on_this_fields_locals_statics_and_imports,
// test_constructors_super_this_and_inheritance,
// test_dispatch_to_overrides_and_ambiguous_overloads, test_unresolved_calls_are_counted,
// test_enum_constants_and_class_literals_are_typed)
//
// test_heritage:
//   an external supertype of an anonymous class: class or interface, we cannot tell
//
// test_imports_single_on_demand_static_and_external:
//   `import com.acme.core.*`: the types the file uses through it
//   `import static ...Strings.pad`
//
// test_calls_on_this_fields_locals_statics_and_imports:
//   a field typed by an interface, and the implementations that may run
//   static call through an on-demand import, a local typed by its declaration
//   a nested class (no declared constructor), a builder chain typed by return types
//   `var sq = new Square()`
//   helper() and this.helper()
//   overloads picked by argument count; a static import; varargs
//   a field of an external type
//   a record: constructor, method, implicit accessor
//   the anonymous class's method sees the enclosing class's methods
//   a method reference is a reference, not a call
//
// test_constructors_super_this_and_inheritance:
//   this(1.0): the one-argument constructor
//   new Circle(): the no-argument constructor
//   methods found in the superclass and in an interface's default method
//   Object's and Enum's methods the repository does not declare
//
// test_dispatch_to_overrides_and_ambiguous_overloads:
//   area() in an interface's default method: every concrete implementation may run
//   an abstract class's method: its overrides, never the abstract declaration at dispatch
//   overloaded(1): two one-argument overloads, argument types unknown -> both at dispatch
//
// test_unresolved_calls_are_counted:
//   getClass().getSimpleName() and name().toLowerCase(): results of external calls
//
// test_enum_constants_and_class_literals_are_typed:
//   a constant is a Color; GREEN's body overrides code()
//
// test_definitions_kinds_and_qualified_names (every definition and CONTAINS edge is
// asserted, `exact: defines, in`):
//   constructors are `<init>` (`<init>#2`: the second), overloads `join#2`
//   an enum, its plain constant (a variable), and a constant with a body (a class)
//   a record: its components are fields, a compact constructor is its <init>
//   an anonymous class inside a method (Renderer.render.$1), nested classes (Circle.Builder)
//
// expect: calls.total = 44
// expect: calls.builtin = 0
// expect: calls.unresolved = 2
// expect: calls.resolved = 42
// exact: calls, imports, references, extends, implements, defines, in
// path: src/main/java/com/acme/app/Renderer.java
package com.acme.app;
// ^ defines: src/main/java/com/acme/app/Renderer.java:: module 1-128

import com.acme.core.*;
// ^ imports: com.acme.core.AbstractShape
// ^ imports: com.acme.core.Circle
// ^ imports: com.acme.core.Color
// ^ imports: com.acme.core.Point
// ^ imports: com.acme.core.Shape
// ^ imports: com.acme.core.Square
import com.acme.util.Strings;
    // ^ imports: com.acme.util.Strings
import static com.acme.util.Strings.pad;
           // ^ imports: com.acme.util.Strings.pad
import java.util.function.Supplier;
    // ^ imports: <external>::java.util.function.Supplier
import org.slf4j.Logger;
    // ^ imports: <external>::org.slf4j.Logger

public class Renderer {
          // ^ defines: com.acme.app.Renderer class 20-127
          // ^ in: src/main/java/com/acme/app/Renderer.java::
    private final Shape shape;
               // ^ references: com.acme.core.Shape (import)
                     // ^ defines: com.acme.app.Renderer.shape variable 23-23
                     // ^ in: com.acme.app.Renderer
    private Logger log;
                // ^ defines: com.acme.app.Renderer.log variable 27-27
                // ^ in: com.acme.app.Renderer

    public Renderer(Shape shape) { this.shape = shape; }
                 // ^ references: com.acme.core.Shape (import)
        // ^ defines: com.acme.app.Renderer.<init> method 31-31
        // ^ in: com.acme.app.Renderer

    public String render() {
               // ^ defines: com.acme.app.Renderer.render method 36-90
               // ^ in: com.acme.app.Renderer
        double a = shape.area();
                // ^ calls: com.acme.core.Shape.area (local-type)
        Circle c = Circle.unit();
                // ^ calls: com.acme.core.Circle.unit (import)
     // ^ references: com.acme.core.Circle (import)
        String s = c.label();
                // ^ calls: com.acme.core.Circle.label (local-type)
        Circle.Builder b = new Circle.Builder();
     // ^ calls: com.acme.core.Circle.Builder (import)
     // ^ references: com.acme.core.Circle.Builder (import)
        b.radius(2).build().area();
                 // ^ calls: com.acme.core.Circle.Builder.build (local-type)
     // ^ calls: com.acme.core.Circle.Builder.radius (local-type)
                 // ^ calls: com.acme.core.Circle.area (local-type)
        var sq = new Square();
                  // ^ calls: com.acme.core.Square (import)
                  // ^ calls: com.acme.core.Square.<init> (constructor)
                  // ^ references: com.acme.core.Square (import)
        sq.area();
     // ^ calls: com.acme.core.Square.area (local-type)
        helper();
     // ^ calls: com.acme.app.Renderer.helper (self)
        this.helper();
        Strings.join(s);
     // ^ calls: src/main/java/com/acme/util/Strings.java::Strings.join (import)
        Strings.join(s, s);
     // ^ calls: src/main/java/com/acme/util/Strings.java::Strings.join#2 (import)
        pad(s, 1, 2);
     // ^ calls: com.acme.util.Strings.pad (import)
        log.info("done");
     // ^ calls: <external>::org.slf4j.Logger.info (local-type)
        Runnable r = new Runnable() {
     // ^ calls: <external>::java.lang.Runnable (import)
     // ^ extends: <external>::java.lang.Runnable
                      // ^ defines: com.acme.app.Renderer.render.$1 class 70-79
                      // ^ in: com.acme.app.Renderer.render
            public void run() { helper(); }
                             // ^ calls: com.acme.app.Renderer.helper (self)
                     // ^ defines: com.acme.app.Renderer.render.$1.run method 75-75
                     // ^ in: com.acme.app.Renderer.render.$1
        };
        Supplier<Circle> sup = Circle::unit;
                            // ^ references: com.acme.core.Circle.unit (import)
        Point p = new Point(1, 2);
     // ^ calls: com.acme.core.Point (import)
     // ^ calls: com.acme.core.Point.<init> (constructor)
     // ^ references: com.acme.core.Point (import)
        p.sum();
     // ^ calls: com.acme.core.Point.sum (local-type)
        return Strings.join(s) + a + p.x();
                                  // ^ calls: com.acme.core.Point.x (local-type)
    }

    void helper() {}
      // ^ defines: com.acme.app.Renderer.helper method 92-92
      // ^ in: com.acme.app.Renderer

    void overloaded(int a) {}
      // ^ defines: src/main/java/com/acme/app/Renderer.java::Renderer.overloaded method 96-96
      // ^ in: com.acme.app.Renderer

    void overloaded(String a) {}
      // ^ defines: src/main/java/com/acme/app/Renderer.java::Renderer.overloaded#2 method 100-100
      // ^ in: com.acme.app.Renderer

    void callsOverloaded() { overloaded(1); }
                          // ^ calls: src/main/java/com/acme/app/Renderer.java::Renderer.overloaded (dispatch)
                          // ^ calls: src/main/java/com/acme/app/Renderer.java::Renderer.overloaded#2 (dispatch)
      // ^ defines: com.acme.app.Renderer.callsOverloaded method 104-104
      // ^ in: com.acme.app.Renderer

    void all(AbstractShape s) { s.area(); s.name(); s.hashCode(); }
                                                 // ^ calls: <external>::java.lang.Object.hashCode (local-type)
                             // ^ calls: com.acme.core.AbstractShape.area (local-type)
                                       // ^ calls: com.acme.core.AbstractShape.name (local-type)
                             // ^ calls: com.acme.core.Circle.area (dispatch)
                             // ^ calls: com.acme.core.Square.area (dispatch)
          // ^ references: com.acme.core.AbstractShape (import)
      // ^ defines: com.acme.app.Renderer.all method 110-110
      // ^ in: com.acme.app.Renderer

    void constants() { Color.RED.code(); Renderer.class.getName(); }
                                      // ^ calls: <external>::java.lang.Class.getName (local-type)
                    // ^ calls: com.acme.core.Color.GREEN.code (dispatch)
                    // ^ calls: com.acme.core.Color.code (local-type)
                                      // ^ references: com.acme.app.Renderer (scope)
      // ^ defines: com.acme.app.Renderer.constants method 120-120
      // ^ in: com.acme.app.Renderer
}
// path: src/main/java/com/acme/core/AbstractShape.java
package com.acme.core;
// ^ defines: src/main/java/com/acme/core/AbstractShape.java:: module 1-30

import java.util.List;
    // ^ imports: <external>::java.util.List

public abstract class AbstractShape implements Shape {
                                            // ^ implements: com.acme.core.Shape
                                            // ^ references: com.acme.core.Shape (scope)
                   // ^ defines: com.acme.core.AbstractShape class 7-29
                   // ^ in: src/main/java/com/acme/core/AbstractShape.java::
    protected final List<String> tags;
                              // ^ defines: com.acme.core.AbstractShape.tags variable 12-12
                              // ^ in: com.acme.core.AbstractShape

    protected AbstractShape(List<String> tags) { this.tags = tags; }
           // ^ defines: com.acme.core.AbstractShape.<init> method 16-16
           // ^ in: com.acme.core.AbstractShape

    public String name() { return getClass().getSimpleName(); }
                               // ^ calls: <external>::java.lang.Object.getClass (inheritance)
                               // ^ unresolved: getSimpleName
               // ^ defines: com.acme.core.AbstractShape.name method 20-20
               // ^ in: com.acme.core.AbstractShape

    public abstract double area();
                        // ^ defines: com.acme.core.AbstractShape.area method 26-26
                        // ^ in: com.acme.core.AbstractShape
}
// path: src/main/java/com/acme/core/Circle.java
package com.acme.core;
// ^ defines: src/main/java/com/acme/core/Circle.java:: module 1-68

import java.util.ArrayList;
    // ^ imports: <external>::java.util.ArrayList

public class Circle extends AbstractShape {
                         // ^ extends: com.acme.core.AbstractShape
                         // ^ references: com.acme.core.AbstractShape (scope)
          // ^ defines: com.acme.core.Circle class 7-67
          // ^ in: src/main/java/com/acme/core/Circle.java::
    private final double r;
                      // ^ defines: com.acme.core.Circle.r variable 12-12
                      // ^ in: com.acme.core.Circle

    public Circle(double r) {
        // ^ defines: src/main/java/com/acme/core/Circle.java::Circle.<init> method 16-23
        // ^ in: com.acme.core.Circle
        super(new ArrayList<>());
               // ^ calls: <external>::java.util.ArrayList (import)
     // ^ calls: com.acme.core.AbstractShape.<init> (super)
        this.r = r;
    }

    public Circle() { this(1.0); }
        // ^ calls: src/main/java/com/acme/core/Circle.java::Circle.<init> (self)
        // ^ defines: src/main/java/com/acme/core/Circle.java::Circle.<init>#2 method 25-25
        // ^ in: com.acme.core.Circle

 // v defines: com.acme.core.Circle.area method 32-33
 // v in: com.acme.core.Circle
    @Override
    public double area() { return Math.PI * r * r; }

    public String label() { return name() + describe(); }
                                // ^ calls: com.acme.core.AbstractShape.name (inheritance)
                                         // ^ calls: com.acme.core.Shape.describe (inheritance)
               // ^ defines: com.acme.core.Circle.label method 35-35
               // ^ in: com.acme.core.Circle

    public static Circle unit() { return new Circle(); }
               // ^ calls: com.acme.core.Circle (scope)
               // ^ calls: src/main/java/com/acme/core/Circle.java::Circle.<init>#2 (constructor)
               // ^ references: com.acme.core.Circle (scope)
                      // ^ defines: com.acme.core.Circle.unit method 41-41
                      // ^ in: com.acme.core.Circle

    public static class Builder {
                     // ^ defines: com.acme.core.Circle.Builder class 48-66
                     // ^ in: com.acme.core.Circle
        private double r;
                    // ^ defines: com.acme.core.Circle.Builder.r variable 51-51
                    // ^ in: com.acme.core.Circle.Builder

        public Builder radius(double r) { this.r = r; return this; }
            // ^ references: com.acme.core.Circle.Builder (scope)
                    // ^ defines: com.acme.core.Circle.Builder.radius method 55-55
                    // ^ in: com.acme.core.Circle.Builder

        public Circle build() { return new Circle(r); }
            // ^ calls: com.acme.core.Circle (scope)
            // ^ calls: src/main/java/com/acme/core/Circle.java::Circle.<init> (constructor)
            // ^ references: com.acme.core.Circle (scope)
                   // ^ defines: com.acme.core.Circle.Builder.build method 60-60
                   // ^ in: com.acme.core.Circle.Builder
    }
}
// path: src/main/java/com/acme/core/Color.java
package com.acme.core;
// ^ defines: src/main/java/com/acme/core/Color.java:: module 1-26

public enum Color {
         // ^ defines: com.acme.core.Color enum 4-25
         // ^ in: src/main/java/com/acme/core/Color.java::
    RED,
 // ^ defines: com.acme.core.Color.RED variable 7-7
 // ^ in: com.acme.core.Color
    GREEN {
 // ^ extends: com.acme.core.Color
 // ^ defines: com.acme.core.Color.GREEN class 10-18
 // ^ in: com.acme.core.Color
     // v defines: com.acme.core.Color.GREEN.code method 16-17
     // v in: com.acme.core.Color.GREEN
        @Override
        String code() { return "g"; }
    };

    String code() { return name().toLowerCase(); }
                        // ^ calls: <external>::java.lang.Enum.name (inheritance)
                        // ^ unresolved: toLowerCase
        // ^ defines: com.acme.core.Color.code method 20-20
        // ^ in: com.acme.core.Color
}
// path: src/main/java/com/acme/core/Point.java
package com.acme.core;
// ^ defines: src/main/java/com/acme/core/Point.java:: module 1-26

public record Point(int x, int y) {
           // ^ defines: com.acme.core.Point class 4-25
           // ^ in: src/main/java/com/acme/core/Point.java::
                     // ^ defines: com.acme.core.Point.x variable 4-4
                     // ^ in: com.acme.core.Point
                            // ^ defines: com.acme.core.Point.y variable 4-4
                            // ^ in: com.acme.core.Point
    public Point {
        // ^ defines: com.acme.core.Point.<init> method 11-16
        // ^ in: com.acme.core.Point
        check(x);
     // ^ calls: com.acme.core.Point.check (self)
    }

    static void check(int v) {}
             // ^ defines: com.acme.core.Point.check method 18-18
             // ^ in: com.acme.core.Point

    public int sum() { return x + y; }
            // ^ defines: com.acme.core.Point.sum method 22-22
            // ^ in: com.acme.core.Point
}
// path: src/main/java/com/acme/core/Shape.java
package com.acme.core;
// ^ defines: src/main/java/com/acme/core/Shape.java:: module 1-18

public interface Shape {
              // ^ defines: com.acme.core.Shape interface 4-17
              // ^ in: src/main/java/com/acme/core/Shape.java::
    double area();
        // ^ defines: com.acme.core.Shape.area method 7-7
        // ^ in: com.acme.core.Shape

    default String describe() { return "shape " + area(); }
                                               // ^ calls: com.acme.core.Circle.area (dispatch)
                                               // ^ calls: com.acme.core.Shape.area (self)
                                               // ^ calls: com.acme.core.Square.area (dispatch)
                // ^ defines: com.acme.core.Shape.describe method 11-11
                // ^ in: com.acme.core.Shape
}
// path: src/main/java/com/acme/core/Square.java
package com.acme.core;
// ^ defines: src/main/java/com/acme/core/Square.java:: module 1-18

public class Square extends AbstractShape {
                         // ^ extends: com.acme.core.AbstractShape
                         // ^ references: com.acme.core.AbstractShape (scope)
          // ^ defines: com.acme.core.Square class 4-17
          // ^ in: src/main/java/com/acme/core/Square.java::
    public Square() { super(null); }
        // ^ calls: com.acme.core.AbstractShape.<init> (super)
        // ^ defines: com.acme.core.Square.<init> method 9-9
        // ^ in: com.acme.core.Square

    public double area() { return 4; }
               // ^ defines: com.acme.core.Square.area method 14-14
               // ^ in: com.acme.core.Square
}
// path: src/main/java/com/acme/util/Strings.java
package com.acme.util;
// ^ defines: com.acme.util module 1-23

public final class Strings {
                // ^ defines: com.acme.util.Strings class 4-22
                // ^ in: com.acme.util
    private Strings() {}
         // ^ defines: com.acme.util.Strings.<init> method 7-7
         // ^ in: com.acme.util.Strings

    public static String join(String a) { return a; }
                      // ^ defines: src/main/java/com/acme/util/Strings.java::Strings.join method 11-11
                      // ^ in: com.acme.util.Strings

    public static String join(String a, String b) { return a + b; }
                      // ^ defines: src/main/java/com/acme/util/Strings.java::Strings.join#2 method 15-15
                      // ^ in: com.acme.util.Strings

    public static String pad(String s, int... widths) { return s; }
                      // ^ defines: com.acme.util.Strings.pad method 19-19
                      // ^ in: com.acme.util.Strings
}
// path: src/test/java/com/acme/app/RendererTest.java
package com.acme.app;
// ^ defines: src/test/java/com/acme/app/RendererTest.java:: module 1-30

import com.acme.core.Circle;
    // ^ imports: com.acme.core.Circle
import org.junit.jupiter.api.Test;
    // ^ imports: <external>::org.junit.jupiter.api.Test

class RendererTest {
   // ^ defines: com.acme.app.RendererTest class 9-29
   // ^ in: src/test/java/com/acme/app/RendererTest.java::
 // v defines: com.acme.app.RendererTest.renders method 14-24
 // v in: com.acme.app.RendererTest
    @Test
    void renders() {
        new Renderer(new Circle(2)).render();
         // ^ calls: com.acme.app.Renderer (scope)
         // ^ calls: com.acme.app.Renderer.<init> (constructor)
                                 // ^ calls: com.acme.app.Renderer.render (local-type)
                      // ^ calls: com.acme.core.Circle (import)
                      // ^ calls: src/main/java/com/acme/core/Circle.java::Circle.<init> (constructor)
         // ^ references: com.acme.app.Renderer (scope)
                      // ^ references: com.acme.core.Circle (import)
    }

    private void setUp() {}
              // ^ defines: com.acme.app.RendererTest.setUp method 26-26
              // ^ in: com.acme.app.RendererTest
}
