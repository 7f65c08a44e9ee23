import Foundation
import LecternCLI

exit(await LecternCommand.entry())
