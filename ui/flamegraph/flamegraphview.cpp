#include "ui/flamegraph/flamegraphview.h"

#include "ui/flamegraph/flametooltip.h"
#include "ui/flamegraph/framepainter.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

namespace pyrometer::ui::flamegraph {

FlameGraphView::FlameGraphView(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(60);
    setContextMenuPolicy(Qt::DefaultContextMenu);
}

void FlameGraphView::setGraph(std::shared_ptr<const analysis::FlameGraph> graph)
{
    m_graph = std::move(graph);
    m_zoom = 0;
    m_hovered = -1;
    m_scrollY = m_inverted ? std::numeric_limits<int>::max() : 0;
    m_search = m_graph ? analysis::searchFlame(m_graph->tree, m_searchText.toStdString()) : analysis::FlameSearch{};
    recolor();
    m_layoutValid = false;
    clampScroll();
    update();
    Q_EMIT zoomChanged(m_zoom);
}

void FlameGraphView::setColorMode(FlameColorMode mode)
{
    if (mode == m_colorMode)
        return;
    m_colorMode = mode;
    recolor();
    update();
}

void FlameGraphView::setInverted(bool inverted)
{
    m_inverted = inverted;
    m_scrollY = inverted ? std::numeric_limits<int>::max() : 0;
    m_layoutValid = false;
    clampScroll();
    update();
}

void FlameGraphView::setSearchText(const QString &text)
{
    m_searchText = text;
    m_search = m_graph ? analysis::searchFlame(m_graph->tree, text.toStdString()) : analysis::FlameSearch{};
    update();
}

void FlameGraphView::zoomTo(std::uint32_t node)
{
    if (!m_graph || node >= m_graph->tree.nodes.size() || node == m_zoom)
        return;
    m_zoom = node;
    m_hovered = -1;
    m_scrollY = m_inverted ? std::numeric_limits<int>::max() : 0;
    m_layoutValid = false;
    clampScroll();
    update();
    Q_EMIT zoomChanged(node);
}

void FlameGraphView::recolor()
{
    m_colors.clear();
    if (!m_graph)
        return;
    m_colors.resize(m_graph->tree.nodes.size());
    for (std::uint32_t n = 0; n < m_colors.size(); ++n)
        m_colors[n] = frameColor(*m_graph, n, m_colorMode);
}

int FlameGraphView::rowHeight() const
{
    return fontMetrics().height() + 5;
}

analysis::IcicleViewport FlameGraphView::viewport() const
{
    analysis::IcicleViewport v;
    v.zoom = m_zoom;
    v.width = width();
    v.height = height();
    v.rowHeight = rowHeight();
    v.scrollY = m_scrollY;
    v.inverted = m_inverted;
    return v;
}

void FlameGraphView::clampScroll()
{
    if (!m_graph)
        return;
    const int rowHeight = viewport().rowHeight;
    const int content = int(m_graph->height[m_zoom]) * rowHeight;
    const int slack = content - height();
    // Short content sits at the top, or at the bottom when inverted (next to what it calls).
    const int low = m_inverted ? std::min(0, slack) : 0;
    const int high = std::max(low, slack);
    m_scrollY = std::clamp(m_scrollY, low, high);
}

const analysis::IcicleLayout &FlameGraphView::currentLayout()
{
    const auto v = viewport();
    if (!m_layoutValid || !(m_layout.viewport == v)) {
        m_layout = m_graph ? analysis::layoutIcicle(*m_graph, v) : analysis::IcicleLayout{};
        m_layoutValid = true;
        m_hovered = -1;
    }
    return m_layout;
}

void FlameGraphView::paintEvent(QPaintEvent *)
{
    QElapsedTimer timer;
    timer.start();
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (!m_graph)
        return;
    const auto &layout = currentLayout();
    paintBoxes(painter, layout.boxes);
    if (m_hovered >= 0 && std::size_t(m_hovered) < layout.boxes.size()) {
        const auto &b = layout.boxes[std::size_t(m_hovered)];
        painter.setPen(QPen(palette().text().color(), 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRect(b.x, b.y, std::max(1, b.width - 2), b.height - 2));
    }
    Q_EMIT painted(double(timer.nsecsElapsed()) / 1e6);
}

void FlameGraphView::paintBoxes(QPainter &painter, const std::vector<analysis::FlameBox> &boxes) const
{
    const bool searching = !m_searchText.isEmpty();
    std::vector<PaintFrame> frames;
    frames.reserve(boxes.size());
    for (const auto &box : boxes) {
        std::uint32_t color = box.merged ? kMergedColor : m_colors[box.node];
        if (searching && (box.merged || !m_search.matched[box.node]))
            color = kDimmedColor;
        frames.push_back({QRect(box.x, box.y, box.width, box.height), color, box.node, box.merged == 0});
    }
    const auto &graph = *m_graph;
    paintFrames(
        painter, frames,
        [&](std::uint32_t node) {
            return QString::fromUtf8(graph.label(node).data(), qsizetype(graph.label(node).size()));
        },
        [&](std::uint32_t node) { return valueText(graph.tree.nodes[node].totalNs, m_unit); });
}

QImage FlameGraphView::contentImage(int width, int maxHeight) const
{
    if (!m_graph || width <= 0 || maxHeight <= 0)
        return {};
    auto v = viewport();
    v.width = width;
    v.scrollY = 0;
    v.height = std::numeric_limits<int>::max();
    auto boxes = analysis::layoutIcicle(*m_graph, v).boxes;
    if (boxes.empty())
        return {};
    int top = std::numeric_limits<int>::max();
    int bottom = std::numeric_limits<int>::min();
    for (const auto &box : boxes) {
        top = std::min(top, box.y);
        bottom = std::max(bottom, box.y + box.height);
    }
    const int height = std::min(bottom - top, maxHeight);
    // Inverted, the zoomed frame is at the bottom: a cut keeps the rows next to it.
    const int offset = m_inverted ? bottom - height : top;
    for (auto &box : boxes)
        box.y -= offset; // moved, not translated: labels are clipped to the painter's window
    QImage image(width, height, QImage::Format_RGB32);
    image.fill(palette().base().color());
    QPainter painter(&image);
    painter.setFont(font());
    paintBoxes(painter, boxes);
    return image;
}

int FlameGraphView::boxAt(QPoint pos)
{
    if (!m_graph)
        return -1;
    return analysis::hitBox(currentLayout().boxes, pos.x(), pos.y());
}

std::optional<std::uint32_t> FlameGraphView::nodeAt(QPoint pos)
{
    const int box = boxAt(pos);
    if (box < 0)
        return std::nullopt;
    return m_layout.boxes[std::size_t(box)].node;
}

QString FlameGraphView::toolTipAt(QPoint pos)
{
    const int box = boxAt(pos);
    if (box < 0)
        return {};
    const auto &b = m_layout.boxes[std::size_t(box)];
    return b.merged ? mergedToolTip(*m_graph, b.node, b.merged, m_unit) : frameToolTip(*m_graph, b.node, m_unit);
}

bool FlameGraphView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        showFrameToolTip(this, help, toolTipAt(help->pos()));
        return true;
    }
    return QWidget::event(event);
}

void FlameGraphView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_pressedBox = boxAt(event->position().toPoint());
}

void FlameGraphView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    const int box = boxAt(event->position().toPoint());
    const bool ignore = m_ignoreRelease;
    m_ignoreRelease = false;
    if (ignore || box < 0 || box != m_pressedBox)
        return;
    const auto b = m_layout.boxes[std::size_t(box)];
    m_clicked = b.merged ? std::nullopt : std::optional<std::uint32_t>(b.node);
    m_sinceClick.start();
    if (b.merged || b.node == m_zoom)
        zoomTo(m_graph->tree.nodes[b.node].parent); // the full-width frame: one level out
    else
        zoomTo(b.node);
}

void FlameGraphView::mouseDoubleClickEvent(QMouseEvent *event)
{
    // The first click of the two zoomed into a frame, so what is under the cursor now is
    // another one: the sandwich asked for is of the frame clicked.
    m_ignoreRelease = true;
    std::optional<std::uint32_t> node = m_clicked;
    if (!node || m_sinceClick.elapsed() > QApplication::doubleClickInterval())
        node = nodeAt(event->position().toPoint());
    if (node && *node != 0 && *node < m_graph->tree.nodes.size())
        Q_EMIT sandwichRequested(QString::fromStdString(m_graph->tree.nodes[*node].name));
}

void FlameGraphView::mouseMoveEvent(QMouseEvent *event)
{
    const int box = boxAt(event->position().toPoint());
    if (box != m_hovered) {
        m_hovered = box;
        update();
    }
    setCursor(box >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void FlameGraphView::leaveEvent(QEvent *)
{
    if (m_hovered >= 0) {
        m_hovered = -1;
        update();
    }
}

void FlameGraphView::wheelEvent(QWheelEvent *event)
{
    m_scrollY -= event->angleDelta().y() / 2;
    clampScroll();
    update();
}

void FlameGraphView::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    if (const auto node = nodeAt(event->pos())) {
        const QString name = QString::fromStdString(m_graph->tree.nodes[*node].name);
        menu.addAction(tr("Zoom into %1").arg(name.left(60)), this, [this, n = *node] { zoomTo(n); });
        menu.addAction(tr("Reset zoom"), this, [this] { zoomTo(0); });
        if (*node != 0) {
            menu.addAction(tr("Sandwich view of %1").arg(name.left(60)), this, [this, name] { Q_EMIT sandwichRequested(name); });
            menu.addAction(tr("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
        }
    }
    // What the owner added (a page's exports), below the frame's own actions.
    if (!actions().isEmpty()) {
        if (!menu.isEmpty())
            menu.addSeparator();
        menu.addActions(actions());
    }
    if (!menu.isEmpty())
        menu.exec(event->globalPos());
}

void FlameGraphView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    clampScroll();
}

} // namespace pyrometer::ui::flamegraph
