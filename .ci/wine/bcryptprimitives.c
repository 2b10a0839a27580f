/*
 * bcryptprimitives.dll for Wine 8 (Debian 12), which has none: the Go
 * runtime (1.24 and later) calls its ProcessPrng at start and dies
 * ("bcryptprimitives.dll not found") without it. This one is the real
 * thing, not a stub: ProcessPrng fills the buffer from RtlGenRandom
 * (advapi32!SystemFunction036), which Wine draws from the host's kernel
 * random source. Built by setup.sh with Debian's mingw-w64 and installed
 * into the private Wine prefix only.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE; /* the runtime treats this as fatal: no weak fallback */
		data += n;
		length -= n;
	}
	return TRUE;
}
