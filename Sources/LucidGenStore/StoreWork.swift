import Foundation
import LucidGenCore

/// Why a store command's work stopped before it did anything; the CLI says each in its own way.
package enum StoreWorkError: Error {
    /// The command line asks for what cannot be (a malformed option, a version not in the history).
    case usage(String)
    /// The config or the descriptions have errors: the generator's diagnostics.
    case input([Diagnostic])
}

/// Why `path` cannot be a store file, or nil when it is one or none yet (`migrate` creates it): a folder, a
/// device (`/dev/null`, which SQLite would read as an empty database and leave a `-journal` beside), a FIFO
/// or a socket, before anything is opened.
package func storeFileProblem(_ path: String, option: String = "--database") -> String? {
    switch FileKind.at(absolutePath(path)) {
    case .missing, .regular: nil
    case .folder: "\(option) \(path): a folder, not a store file (a folder of stores is --stores)"
    case .special(let what), .other(let what): "\(option) \(path): \(what), not a store file"
    }
}
