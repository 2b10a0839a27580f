//go:build !unix

package transcript

func syncUnsupported(error) bool { return false }
