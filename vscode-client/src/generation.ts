// The newest runtime generation this client was told about. Surfaces and
// requests of an older generation are stale (EDITOR_PROTOCOL.md, preamble).

export class Generations {
	private newest = 0;
	private readonly listeners: ((g: number) => void)[] = [];

	get current(): number {
		return this.newest;
	}

	/** Records a generation from initialize or rx/actionsChanged. */
	advance(g: number | undefined): void {
		if (typeof g !== 'number' || !Number.isFinite(g) || g <= this.newest) return;
		this.newest = g;
		for (const l of [...this.listeners]) l(g);
	}

	isStale(g: number | undefined): boolean {
		return typeof g === 'number' && g < this.newest;
	}

	/** A new bridge process starts counting afresh. */
	reset(g: number | undefined): void {
		this.newest = typeof g === 'number' && Number.isFinite(g) ? g : 0;
		for (const l of [...this.listeners]) l(this.newest);
	}

	onDidAdvance(l: (g: number) => void): { dispose(): void } {
		this.listeners.push(l);
		return {
			dispose: () => {
				const i = this.listeners.indexOf(l);
				if (i >= 0) this.listeners.splice(i, 1);
			},
		};
	}
}
