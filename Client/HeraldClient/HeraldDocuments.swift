// The documents an app and the server share (a device's NotificationConfiguration) live in
// HeraldDocuments, which the server's HeraldModel imports too; an app sees them through
// HeraldClient alone.
@_exported import HeraldDocuments
