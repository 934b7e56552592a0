/** The page inside <main>: the state the review is in, drawn afresh (a new key) whenever the page turns into another. */
import type { State } from '../state';
import { Review } from './review';
import { Expired, Failed, InvalidLink, Preparing, Unreachable } from './states';

export function App({ s }: { s: State }) {
  const { view } = s;
  if (s.screen === 'unreachable') return <Unreachable key={s.drawn} live={s.live} />;
  if (s.screen === 'invalid' || !view) return <InvalidLink key={s.drawn} />;
  switch (s.screen) {
    case 'preparing':
      return <Preparing key={s.drawn} view={view} live={s.live} />;
    case 'expired':
      return <Expired key={s.drawn} view={view} />;
    case 'failed':
      return <Failed key={s.drawn} view={view} />;
    default:
      return <Review key={s.drawn} s={s} view={view} />;
  }
}
