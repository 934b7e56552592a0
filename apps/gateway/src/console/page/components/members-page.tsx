import { useEffect, useRef, useState } from 'preact/hooks';
import { api, failureText, refusalText, setCsrfToken, type ApiFailure } from '../api';
import { formatDate, t } from '../i18n';
import { navigate } from '../router';
import { isOwner, refreshSession, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { useLoad } from '../use-load';
import { useRemovalFocus } from '../use-removal-focus';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { errorProps, FieldError } from './field-error';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

interface Member {
  id: string;
  email: string;
  display_name: string;
  role: 'owner' | 'admin' | 'viewer';
  created_at: string;
}
interface Invitation {
  id: string;
  url: string;
  email: string;
  role: string;
  expires_at: string;
  /** The address is already a member: the link sets a new password for them. */
  password_reset?: boolean;
}
const ROLES = ['owner', 'admin', 'viewer'] as const;

/** Who is in the organization; owners invite, change roles and remove (an organization keeps one owner). */
export function MembersPage({ session, onSignedOut }: { session: SessionView; onSignedOut: () => void }) {
  const owner = isOwner(session);
  const members = useLoad<{ data: Member[] }>('/members');
  const invitations = useLoad<{ data: Invitation[] }>(owner ? '/invitations' : null);
  const [removing, setRemoving] = useState<Member | null>(null);
  // A role chosen in a member's select (a closed select changes on each arrow key, so choosing is not changing: the
  // row's "Save the role" asks to confirm the choice), and the one waiting for the owner's confirmation.
  const [drafts, setDrafts] = useState<Record<string, Member['role']>>({});
  // Roles the server has taken that the list, read again after the change, does not show yet: the select shows the
  // new role at once rather than the old one until the list comes (or, if reading it fails, at all).
  const [taken, setTaken] = useState<Record<string, Member['role']>>({});
  useEffect(() => setTaken({}), [members.data]);
  const roleOf = (m: Member): Member['role'] => taken[m.id] ?? m.role;
  const draftOf = (m: Member): Member['role'] => drafts[m.id] ?? roleOf(m);
  const [rolePending, setRolePending] = useState<{ member: Member; role: Member['role'] } | null>(null);
  const [withdrawing, setWithdrawing] = useState<Invitation | null>(null);
  const [invited, setInvited] = useState<Invitation | null>(null);
  const removeId = (m: Member) => `remove-${m.id}`;
  const withdrawId = (i: Invitation) => `withdraw-${i.id}`;
  const memberFocus = useRemovalFocus(members.data?.data, removeId);
  const invitationFocus = useRemovalFocus(invitations.data?.data, withdrawId);
  // The only owner can be neither demoted nor removed (the server refuses it too): the page says so instead of offering it.
  const owners = members.data?.data.filter((m) => m.role === 'owner').length ?? 0;
  const lastOwner = (m: Member) => m.role === 'owner' && owners <= 1;

  const self = (m: Member) => m.id === session.member.id;
  // Display names are not unique: a member who shares theirs is named with their e-mail too ("Remove Alex Doe
  // (alex@…)"), in their controls, the questions and the messages about them. Two "Remove Alex Doe" buttons, and one
  // "Remove Alex Doe?", told nobody which of them would go.
  const named = (m: Member): string => {
    const same = (o: Member) => o.display_name.trim().toLocaleLowerCase() === m.display_name.trim().toLocaleLowerCase();
    return (members.data?.data.filter(same).length ?? 0) > 1
      ? t('members.name_with_email', { name: m.display_name, email: m.email })
      : m.display_name;
  };
  const changeRole = async () => {
    const { member: m, role } = rolePending!;
    setRolePending(null);
    try {
      await api('PATCH', `/members/${m.id}`, { role });
      setTaken((was) => ({ ...was, [m.id]: role }));
      setDrafts(({ [m.id]: _saved, ...others }) => others);
      // The row's save button goes with the change: the focus goes back to the member's select.
      document.getElementById(`role-${m.id}`)?.focus();
      announce(t('members.role_changed', { name: named(m), role: t(`role.${role}`) }));
      // Their own role: the whole console now shows what they may do (an admin manages no members).
      if (self(m)) await refreshSession();
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
    members.reload();
    // Links the change withdrew (a demoted owner's, a reset link for a member now an owner) leave the pending list.
    invitations.reload();
  };
  const remove = async () => {
    const m = removing!;
    setRemoving(null);
    try {
      await api('DELETE', `/members/${m.id}`);
      if (m.id === session.member.id) {
        // Their own account is gone with its sessions: the sign-in page, saying why, not "your session has ended".
        setCsrfToken(null);
        announce(t('members.removed_self', { organization: session.organization.name }));
        onSignedOut();
        navigate('/console', true);
        return;
      }
      announce(t('members.removed', { name: named(m) }));
      memberFocus.removed(m);
      members.reload();
      invitations.reload(); // the removed member's links are withdrawn with them
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  };
  const withdraw = async () => {
    const i = withdrawing!;
    setWithdrawing(null);
    try {
      await api('DELETE', `/invitations/${i.id}`);
      announce(t('members.withdrawn', { email: i.email }));
      // Its link no longer works: the panel that offered it goes too.
      if (invited?.id === i.id) setInvited(null);
      invitationFocus.removed(i);
      invitations.reload();
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  };
  return (
    <section>
      <PageTitle text={t('members.title')} headingRef={memberFocus.heading} />
      <p class="muted" id="members-intro">
        {t('members.intro')}
      </p>
      <LoadState loading={members.loading && !members.data} error={members.error} onRetry={members.reload} />
      {members.data && (
        <div class="table-wrap stack" tabIndex={0}>
          <table>
            <caption class="visually-hidden">{t('members.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('members.col.name')}</th>
                <th scope="col">{t('members.col.role')}</th>
                <th scope="col">{t('members.col.since')}</th>
                {owner && <th scope="col">{t('members.col.action')}</th>}
              </tr>
            </thead>
            <tbody>
              {members.data.data.map((m) => (
                <tr key={m.id}>
                  <td class="wrap" data-label={t('members.col.name')}>
                    {m.display_name}
                    <br />
                    <span class="muted">{m.email}</span>
                  </td>
                  <td data-label={t('members.col.role')}>
                    {owner ? (
                      <>
                        <label class="visually-hidden" for={`role-${m.id}`}>
                          {t('members.role_of', { name: named(m) })}
                        </label>
                        <select
                          id={`role-${m.id}`}
                          value={draftOf(m)}
                          disabled={lastOwner(m)}
                          aria-describedby={lastOwner(m) ? `last-owner-${m.id}` : undefined}
                          onChange={(e) => {
                            const role = (e.target as HTMLSelectElement).value as Member['role'];
                            setDrafts((d) => ({ ...d, [m.id]: role }));
                          }}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {t(`role.${r}`)}
                            </option>
                          ))}
                        </select>
                        {draftOf(m) !== roleOf(m) && (
                          <button type="button" class="secondary" onClick={() => setRolePending({ member: m, role: draftOf(m) })}>
                            {t('members.role_save')}
                            <span class="visually-hidden"> {t('members.role_save_of', { name: named(m) })}</span>
                          </button>
                        )}
                      </>
                    ) : (
                      t(`role.${m.role}`)
                    )}
                  </td>
                  <td data-label={t('members.col.since')}>{formatDate(m.created_at)}</td>
                  {owner && (
                    <td class="action">
                      {lastOwner(m) ? (
                        <p class="hint" id={`last-owner-${m.id}`}>
                          {t('members.last_owner')}
                        </p>
                      ) : (
                        <button type="button" id={removeId(m)} class="danger" onClick={() => setRemoving(m)}>
                          {t('members.remove', { name: named(m) })}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {owner && (
        <>
          <InviteForm
            onInvited={(i) => {
              setInvited(i);
              invitations.reload();
            }}
          />
          {invited && (
            <div class="panel" role="region" aria-labelledby="invited-title">
              <h3 id="invited-title">
                {invited.password_reset
                  ? t('members.reset_title', { email: invited.email })
                  : t('members.invited_title', { email: invited.email })}
              </h3>
              <p>{t('members.invited_body', { date: formatDate(invited.expires_at) })}</p>
              <p class="wrap">
                <code>{invited.url}</code>
              </p>
              <CopyButton text={invited.url} label={t('members.copy_link')} />
            </div>
          )}
          <h2 ref={invitationFocus.heading} tabIndex={-1}>
            {t('members.pending')}
          </h2>
          {/* A list that could not be read says so, with "Try again": the heading stood over nothing at all. */}
          <LoadState loading={invitations.loading && !invitations.data} error={invitations.error} onRetry={invitations.reload} />
          {invitations.data && invitations.data.data.length === 0 && <p>{t('members.no_pending')}</p>}
          {invitations.data && invitations.data.data.length > 0 && (
            <ul class="cards">
              {invitations.data.data.map((i) => (
                <li key={i.id}>
                  {/* A member's link sets a new password and keeps their role: said so, not a role they would not get. */}
                  {i.email} · {i.password_reset ? t('members.pending_reset') : t(`role.${i.role}`)} ·{' '}
                  <span class="muted">{t('members.expires', { date: formatDate(i.expires_at) })}</span>
                  <div class="actions">
                    <CopyButton text={i.url} label={t('members.copy_link_of', { email: i.email })} />
                    <button type="button" id={withdrawId(i)} class="secondary" onClick={() => setWithdrawing(i)}>
                      {t('members.withdraw', { email: i.email })}
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={
          removing?.id === session.member.id
            ? t('members.remove_self_title')
            : t('members.remove_title', { name: removing ? named(removing) : '' })
        }
        body={
          removing?.id === session.member.id
            ? t('members.remove_self_body', { organization: session.organization.name })
            : t('members.remove_body')
        }
        confirm={t('members.remove_confirm')}
        onConfirm={remove}
        onCancel={() => setRemoving(null)}
      />
      <ConfirmDialog
        open={rolePending !== null}
        title={t('members.role_title', {
          name: rolePending ? named(rolePending.member) : '',
          role: t(`role.${rolePending?.role ?? 'viewer'}`),
        })}
        body={rolePending && self(rolePending.member) ? t('members.role_body_self') : t('members.role_body')}
        confirm={t('members.role_confirm', { role: t(`role.${rolePending?.role ?? 'viewer'}`) })}
        danger={rolePending !== null && self(rolePending.member)}
        onConfirm={changeRole}
        onCancel={() => setRolePending(null)}
      />
      <ConfirmDialog
        open={withdrawing !== null}
        title={t('members.withdraw_title', { email: withdrawing?.email ?? '' })}
        body={t('members.withdraw_body')}
        confirm={t('members.withdraw_confirm')}
        onConfirm={withdraw}
        onCancel={() => setWithdrawing(null)}
      />
    </section>
  );
}

function InviteForm({ onInvited }: { onInvited: (i: Invitation) => void }) {
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const formRef = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(formRef, errors);
  // The least power by default, again after each invitation.
  const [role, setRole] = useState<string>('viewer');
  const send = useAction(async (formEl: HTMLFormElement) => {
    const form = new FormData(formEl);
    clearStatus();
    try {
      const { data } = await api<{ data: Invitation }>('POST', '/invitations', { email: form.get('email'), role: form.get('role') });
      setErrors({});
      formEl.reset();
      setRole('viewer');
      announce(data.password_reset ? t('members.reset_made', { email: data.email }) : t('members.invited', { email: data.email }));
      onInvited(data);
    } catch (err) {
      const failure = err as ApiFailure;
      setErrors(failure.fields ?? {});
      announce(refusalText(failure, ['email', 'role']), 'error');
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    void send.run(event.target as HTMLFormElement);
  };
  return (
    <form ref={formRef} class="panel" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">{t('members.invite_title')}</h2>
      <div class="grid">
        <div>
          <label for="invite-email-input">{t('members.email')}</label>
          <input id="invite-email-input" name="email" type="email" autoComplete="off" {...errorProps('invite-email-error', errors.email)} />
          <FieldError id="invite-email-error" messages={errors.email} />
        </div>
        <div>
          <label for="invite-role">{t('members.role')}</label>
          <select
            id="invite-role"
            name="role"
            value={role}
            onChange={(e) => setRole((e.target as HTMLSelectElement).value)}
            {...errorProps('invite-role-error', errors.role)}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r}`)}
              </option>
            ))}
          </select>
          <FieldError id="invite-role-error" messages={errors.role} />
        </div>
      </div>
      <button type="submit" aria-disabled={send.busy || undefined}>
        {t('members.invite')}
      </button>
    </form>
  );
}
