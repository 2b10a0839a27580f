package plugincontent

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// MaxFileBytes bounds one markdown file. A command, skill or agent is a few
// KiB of instructions; a larger file is almost certainly not one, and its
// text would go into a model prompt whole.
const MaxFileBytes = 1 << 20

// readText reads a markdown file as text: decoded to UTF-8 (decodeText)
// with CR LF turned into LF.
func readText(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxFileBytes {
		return "", fmt.Errorf("%s is larger than %d bytes", path, MaxFileBytes)
	}
	return strings.ReplaceAll(decodeText(b), "\r\n", "\n"), nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeText turns a file's bytes into UTF-8 text. A UTF-8 byte order mark
// is dropped; a UTF-16 one selects UTF-16. Bytes that are not UTF-8 are
// tried as GB18030 (the legacy encoding Reasonix users meet most, as the
// reference does); when that does not decode cleanly either, invalid bytes
// become U+FFFD so nothing fails to load over one bad byte.
func decodeText(b []byte) string {
	switch {
	case bytes.HasPrefix(b, utf8BOM):
		b = b[len(utf8BOM):]
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return decodeUTF16(b[2:], false)
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return decodeUTF16(b[2:], true)
	}
	if utf8.Valid(b) {
		return string(b)
	}
	if d, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b); err == nil && utf8.Valid(d) && !bytes.ContainsRune(d, utf8.RuneError) {
		return string(d)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func decodeUTF16(b []byte, bigEndian bool) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if bigEndian {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			u = append(u, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	return string(utf16.Decode(u))
}
