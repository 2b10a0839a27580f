//go:build !unix

package manifest

// syncUnsupported: a directory cannot be fsynced here (Windows opens no
// handle for it that FlushFileBuffers takes); the rename is what counts.
func syncUnsupported(error) bool { return true }
