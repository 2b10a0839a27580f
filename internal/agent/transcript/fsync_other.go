//go:build !unix

package transcript

// syncUnsupported: a directory cannot be fsynced here (Windows opens no
// handle for it that FlushFileBuffers takes: "Access is denied"); the
// rename is what counts.
func syncUnsupported(error) bool { return true }
