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
// expect: calls.total = 44
// expect: calls.builtin = 0
// expect: calls.unresolved = 2
// expect: calls.resolved = 42
// exact: calls, imports, references, extends, implements
// path: src/main/java/com/acme/app/Renderer.java
package com.acme.app;

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
    private final Shape shape;
               // ^ references: com.acme.core.Shape (import)
    private Logger log;

    public Renderer(Shape shape) { this.shape = shape; }
                 // ^ references: com.acme.core.Shape (import)

    public String render() {
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
            public void run() { helper(); }
                             // ^ calls: com.acme.app.Renderer.helper (self)
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

    void overloaded(int a) {}

    void overloaded(String a) {}

    void callsOverloaded() { overloaded(1); }
                          // ^ calls: src/main/java/com/acme/app/Renderer.java::Renderer.overloaded (dispatch)
                          // ^ calls: src/main/java/com/acme/app/Renderer.java::Renderer.overloaded#2 (dispatch)

    void all(AbstractShape s) { s.area(); s.name(); s.hashCode(); }
                                                 // ^ calls: <external>::java.lang.Object.hashCode (local-type)
                             // ^ calls: com.acme.core.AbstractShape.area (local-type)
                                       // ^ calls: com.acme.core.AbstractShape.name (local-type)
                             // ^ calls: com.acme.core.Circle.area (dispatch)
                             // ^ calls: com.acme.core.Square.area (dispatch)
          // ^ references: com.acme.core.AbstractShape (import)

    void constants() { Color.RED.code(); Renderer.class.getName(); }
                                      // ^ calls: <external>::java.lang.Class.getName (local-type)
                    // ^ calls: com.acme.core.Color.GREEN.code (dispatch)
                    // ^ calls: com.acme.core.Color.code (local-type)
                                      // ^ references: com.acme.app.Renderer (scope)
}
// path: src/main/java/com/acme/core/AbstractShape.java
package com.acme.core;

import java.util.List;
    // ^ imports: <external>::java.util.List

public abstract class AbstractShape implements Shape {
                                            // ^ implements: com.acme.core.Shape
                                            // ^ references: com.acme.core.Shape (scope)
    protected final List<String> tags;

    protected AbstractShape(List<String> tags) { this.tags = tags; }

    public String name() { return getClass().getSimpleName(); }
                               // ^ calls: <external>::java.lang.Object.getClass (inheritance)
                               // ^ unresolved: getSimpleName

    public abstract double area();
}
// path: src/main/java/com/acme/core/Circle.java
package com.acme.core;

import java.util.ArrayList;
    // ^ imports: <external>::java.util.ArrayList

public class Circle extends AbstractShape {
                         // ^ extends: com.acme.core.AbstractShape
                         // ^ references: com.acme.core.AbstractShape (scope)
    private final double r;

    public Circle(double r) {
        super(new ArrayList<>());
               // ^ calls: <external>::java.util.ArrayList (import)
     // ^ calls: com.acme.core.AbstractShape.<init> (super)
        this.r = r;
    }

    public Circle() { this(1.0); }
        // ^ calls: src/main/java/com/acme/core/Circle.java::Circle.<init> (self)

    @Override
    public double area() { return Math.PI * r * r; }

    public String label() { return name() + describe(); }
                                // ^ calls: com.acme.core.AbstractShape.name (inheritance)
                                         // ^ calls: com.acme.core.Shape.describe (inheritance)

    public static Circle unit() { return new Circle(); }
               // ^ calls: com.acme.core.Circle (scope)
               // ^ calls: src/main/java/com/acme/core/Circle.java::Circle.<init>#2 (constructor)
               // ^ references: com.acme.core.Circle (scope)

    public static class Builder {
        private double r;

        public Builder radius(double r) { this.r = r; return this; }
            // ^ references: com.acme.core.Circle.Builder (scope)

        public Circle build() { return new Circle(r); }
            // ^ calls: com.acme.core.Circle (scope)
            // ^ calls: src/main/java/com/acme/core/Circle.java::Circle.<init> (constructor)
            // ^ references: com.acme.core.Circle (scope)
    }
}
// path: src/main/java/com/acme/core/Color.java
package com.acme.core;

public enum Color {
    RED,
    GREEN {
 // ^ extends: com.acme.core.Color
        @Override
        String code() { return "g"; }
    };

    String code() { return name().toLowerCase(); }
                        // ^ calls: <external>::java.lang.Enum.name (inheritance)
                        // ^ unresolved: toLowerCase
}
// path: src/main/java/com/acme/core/Point.java
package com.acme.core;

public record Point(int x, int y) {
    public Point {
        check(x);
     // ^ calls: com.acme.core.Point.check (self)
    }

    static void check(int v) {}

    public int sum() { return x + y; }
}
// path: src/main/java/com/acme/core/Shape.java
package com.acme.core;

public interface Shape {
    double area();

    default String describe() { return "shape " + area(); }
                                               // ^ calls: com.acme.core.Circle.area (dispatch)
                                               // ^ calls: com.acme.core.Shape.area (self)
                                               // ^ calls: com.acme.core.Square.area (dispatch)
}
// path: src/main/java/com/acme/core/Square.java
package com.acme.core;

public class Square extends AbstractShape {
                         // ^ extends: com.acme.core.AbstractShape
                         // ^ references: com.acme.core.AbstractShape (scope)
    public Square() { super(null); }
        // ^ calls: com.acme.core.AbstractShape.<init> (super)

    public double area() { return 4; }
}
// path: src/main/java/com/acme/util/Strings.java
package com.acme.util;

public final class Strings {
    private Strings() {}

    public static String join(String a) { return a; }

    public static String join(String a, String b) { return a + b; }

    public static String pad(String s, int... widths) { return s; }
}
// path: src/test/java/com/acme/app/RendererTest.java
package com.acme.app;

import com.acme.core.Circle;
    // ^ imports: com.acme.core.Circle
import org.junit.jupiter.api.Test;
    // ^ imports: <external>::org.junit.jupiter.api.Test

class RendererTest {
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
}
