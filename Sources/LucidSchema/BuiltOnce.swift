import Foundation

/// A value made the first time it is read, once, whichever thread reads it: what a generated registry's
/// deferred tables (``SchemaTable/Deferred``) and a version's table list are until a migration reads them.
final class BuiltOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let make: @Sendable () -> Value
    private var made: Value?

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let value = make()
        made = value
        return value
    }

    /// Whether the value was made already.
    var isMade: Bool {
        lock.lock()
        defer { lock.unlock() }
        return made != nil
    }
}
