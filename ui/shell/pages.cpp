#include "ui/shell/pages.h"

#include <QCoreApplication>
#include <QStringList>

namespace pyrometer::ui {

QString pageName(Page page)
{
    switch (page) {
    case Page::Overview: return QStringLiteral("overview");
    case Page::Timeline: return QStringLiteral("timeline");
    case Page::FlameGraph: return QStringLiteral("flamegraph");
    case Page::Operators: return QStringLiteral("operators");
    case Page::Memory: return QStringLiteral("memory");
    case Page::Model: return QStringLiteral("model");
    case Page::Compare: return QStringLiteral("compare");
    case Page::Distributed: return QStringLiteral("distributed");
    case Page::Gpu: return QStringLiteral("gpu");
    case Page::Roofline: return QStringLiteral("roofline");
    case Page::Snapshots: return QStringLiteral("snapshots");
    }
    return {};
}

std::optional<Page> pageFromName(const QString &name)
{
    for (const auto page : kAllPages) {
        if (pageName(page) == name.trimmed().toLower())
            return page;
    }
    return std::nullopt;
}

QString pageNames()
{
    QStringList names;
    for (const auto page : kAllPages)
        names.append(pageName(page));
    const QString last = names.takeLast();
    return names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

QString pageTitle(Page page)
{
    switch (page) {
    case Page::Overview: return QCoreApplication::translate("Pages", "Overview");
    case Page::Timeline: return QCoreApplication::translate("Pages", "Timeline");
    case Page::FlameGraph: return QCoreApplication::translate("Pages", "Flame graph");
    case Page::Operators: return QCoreApplication::translate("Pages", "Operators");
    case Page::Memory: return QCoreApplication::translate("Pages", "Memory");
    case Page::Model: return QCoreApplication::translate("Pages", "Model");
    case Page::Compare: return QCoreApplication::translate("Pages", "Compare");
    case Page::Distributed: return QCoreApplication::translate("Pages", "Distributed");
    case Page::Gpu: return QCoreApplication::translate("Pages", "GPU");
    case Page::Roofline: return QCoreApplication::translate("Pages", "Roofline");
    case Page::Snapshots: return QCoreApplication::translate("Pages", "Snapshots");
    }
    return {};
}

} // namespace pyrometer::ui
