package contentref

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

const refPrefix = "content_"

// newRef mints `content_` + 24 lowercase hex characters of 12 random bytes.
func newRef() string {
	var raw [12]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails; it crashes instead
	var out [len(refPrefix) + 2*len(raw)]byte
	copy(out[:], refPrefix)
	hex.Encode(out[len(refPrefix):], raw[:])
	return string(out[:])
}

// hexSHA256 is the lowercase hex SHA-256 of data.
func hexSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// parseSHA256 decodes a 64-character hex digest of either case.
func parseSHA256(s string) (sum [sha256.Size]byte, ok bool) {
	if len(s) != 2*sha256.Size {
		return sum, false
	}
	for i := range sum {
		hi, ok1 := nibble(s[2*i])
		lo, ok2 := nibble(s[2*i+1])
		if !ok1 || !ok2 {
			return sum, false
		}
		sum[i] = hi<<4 | lo
	}
	return sum, true
}

func nibble(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
